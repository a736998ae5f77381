/**
 * The environment user runs get: the user's own, without what packaging the app put into ours.
 * An AppImage's runtime adds APPDIR, APPIMAGE, ARGV0 and OWD, and its AppRun puts the bundle's
 * directories in front of LD_LIBRARY_PATH, PATH, XDG_DATA_DIRS, GSETTINGS_SCHEMA_DIR (other
 * AppRun flavours: PYTHONHOME, GTK_PATH, …) without keeping the old values: a system program
 * started with them loads the bundle's older libraries and fails. Electron adds ELECTRON_* and
 * CHROME_DESKTOP, and on Linux may replace XDG_CURRENT_DESKTOP, keeping the user's value in
 * ORIGINAL_XDG_CURRENT_DESKTOP. The app itself keeps its environment: only runs get this one.
 */
import { isAbsolute } from 'node:path';

const APPIMAGE_RUNTIME_VARIABLES = ['APPDIR', 'APPIMAGE', 'ARGV0', 'OWD'] as const;
const ELECTRON_PREFIX = 'ELECTRON_';
const ELECTRON_VARIABLES = ['CHROME_DESKTOP'] as const;
const ORIGINAL_DESKTOP = 'ORIGINAL_XDG_CURRENT_DESKTOP';
const LIST_SEPARATOR = ':';

function isInside(entry: string, dir: string): boolean {
  return entry === dir || entry.startsWith(`${dir}/`);
}

/**
 * A variable the bundle touched loses its entries inside the bundle and the empty entries AppRun
 * leaves where the user had no value (an empty LD_LIBRARY_PATH or PATH entry means the current
 * directory); one with nothing left is removed. Untouched variables stay exactly as they are.
 */
function withoutBundleEntries(value: string, appDir: string): string | null {
  const entries = value.split(LIST_SEPARATOR);
  if (!entries.some((entry) => isInside(entry.replace(/\/+/g, '/'), appDir))) return value;
  const kept = entries.filter((entry) => entry !== '' && !isInside(entry.replace(/\/+/g, '/'), appDir));
  return kept.length === 0 ? null : kept.join(LIST_SEPARATOR);
}

function bundleDir(env: NodeJS.ProcessEnv): string | null {
  const appDir = env.APPDIR;
  if (appDir === undefined || !isAbsolute(appDir) || appDir.replace(/\/+$/, '') === '') return null;
  return appDir.replace(/\/+/g, '/').replace(/\/$/, '');
}

export function userEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const appDir = bundleDir(env);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name.startsWith(ELECTRON_PREFIX) || (ELECTRON_VARIABLES as readonly string[]).includes(name)) continue;
    if (name === ORIGINAL_DESKTOP) continue;
    if (appDir !== null && (APPIMAGE_RUNTIME_VARIABLES as readonly string[]).includes(name)) continue;
    const cleaned = appDir === null ? value : withoutBundleEntries(value, appDir);
    if (cleaned !== null) result[name] = cleaned;
  }
  const originalDesktop = env[ORIGINAL_DESKTOP];
  if (originalDesktop !== undefined) {
    if (originalDesktop === '') delete result.XDG_CURRENT_DESKTOP;
    else result.XDG_CURRENT_DESKTOP = originalDesktop;
  }
  return result;
}
