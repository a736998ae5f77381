/**
 * Where each agent keeps its hook settings, and reading/writing them safely: a file that is not
 * valid JSON is never touched; a write goes to a temp file next to the real file (through a
 * symlink, as dotfile managers keep them), is flushed, then renamed over it, keeping its mode.
 * HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME are honoured, so tests use fixture dirs.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Json } from './hooks-settings.js';

export type HookScope = 'user' | 'project';
/** Settings files are a few KiB; a bigger one is refused unread rather than rewritten. */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;
const NEW_FILE_MODE = 0o600;

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
}

function envDir(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name];
  return value !== undefined && isAbsolute(value) ? value : null;
}

/** The settings file of `agent` for `scope` (project: under `cwd`). */
export function settingsPath(agent: string, scope: HookScope, cwd: string, env: NodeJS.ProcessEnv): string {
  if (agent === 'claude')
    return scope === 'project'
      ? join(cwd, '.claude', 'settings.json')
      : join(envDir(env, 'CLAUDE_CONFIG_DIR') ?? join(home(env), '.claude'), 'settings.json');
  if (agent === 'codex')
    return scope === 'project'
      ? join(cwd, '.codex', 'hooks.json')
      : join(envDir(env, 'CODEX_HOME') ?? join(home(env), '.codex'), 'hooks.json');
  return scope === 'project'
    ? join(cwd, '.gemini', 'settings.json')
    : join(envDir(env, 'GEMINI_CLI_HOME') ?? home(env), '.gemini', 'settings.json');
}

export class SettingsReadError extends Error {
  override readonly name = 'SettingsReadError';
}

/** The parsed file ({} when absent); SettingsReadError names what is wrong, and nothing is written then. */
export function readSettings(file: string): Json {
  let text: string;
  try {
    if (statSync(file).size > MAX_SETTINGS_BYTES)
      throw new SettingsReadError(`${file} is larger than ${MAX_SETTINGS_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    if (error instanceof SettingsReadError) throw error;
    throw new SettingsReadError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new SettingsReadError(
      `${file} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

export function writeSettingsAtomically(file: string, doc: Json): void {
  const target = realTarget(file);
  mkdirSync(dirname(target), { recursive: true });
  let mode = NEW_FILE_MODE;
  try {
    mode = statSync(target).mode & 0o777;
  } catch {
    // A new file: private by default.
  }
  const temp = `${target}.treewarden-${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, `${JSON.stringify(doc, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}
