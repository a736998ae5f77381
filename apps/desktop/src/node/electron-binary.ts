/**
 * Can Electron start here? Finds the binary the way `require('electron')` does, without ever
 * requiring it: with no binary present the package runs its installer (a network fetch that
 * hangs or fails offline). ELECTRON_OVERRIDE_DIST_PATH is honoured exactly as the package does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const OVERRIDE_ENV = 'ELECTRON_OVERRIDE_DIST_PATH';

export type ElectronProbe =
  | { readonly ok: true; readonly binary: string }
  | { readonly ok: false; readonly reason: string };

function electronPackageDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/** What the electron package's path.txt would say for each platform (used when it is absent). */
const DEFAULT_EXECUTABLE: Partial<Record<NodeJS.Platform, string>> = {
  darwin: 'Electron.app/Contents/MacOS/Electron',
  win32: 'electron.exe',
};

function readPathFile(packageDir: string): string | null {
  try {
    return readFileSync(join(packageDir, 'path.txt'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function findElectronBinary(
  env: NodeJS.ProcessEnv = process.env,
  packageDir: string | null = electronPackageDir(),
  platform: NodeJS.Platform = process.platform,
): ElectronProbe {
  if (packageDir === null) return { ok: false, reason: 'Electron is not installed (no electron package)' };
  const executable = readPathFile(packageDir);
  const override = env[OVERRIDE_ENV];
  if (override !== undefined && override !== '') {
    // The same join the electron package does under the override (which never downloads).
    const binary = join(override, executable ?? DEFAULT_EXECUTABLE[platform] ?? 'electron');
    return existsSync(binary)
      ? { ok: true, binary }
      : { ok: false, reason: `Electron binary not available (${OVERRIDE_ENV} names ${binary}, which does not exist)` };
  }
  if (executable === null)
    return { ok: false, reason: 'Electron binary not available (never downloaded; the download is blocked here)' };
  const binary = join(packageDir, 'dist', executable);
  return existsSync(binary)
    ? { ok: true, binary }
    : { ok: false, reason: `Electron binary not available (${binary} is missing)` };
}
/** Linux needs an X11 or Wayland display; macOS and Windows always have one. */
export function findDisplay(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (platform !== 'linux') return null;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return 'no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

/** Why the desktop app cannot start here, or null when it can try. */
export function whyElectronCannotStart(probe: ElectronProbe, displayProblem: string | null): string | null {
  if (!probe.ok) return probe.reason;
  return displayProblem;
}
