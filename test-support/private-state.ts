/**
 * Every test runs against a private Treewarden state dir: nothing a test starts may land in the
 * developer's own `~/.local/state/treewarden` (their app would list the test leases and runs).
 * Set once here, inherited by every worker and every process the tests start; the suite fails at
 * the end if the user's own state dir changed while it ran.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** What the engine would use with no TREEWARDEN_HOME: `$XDG_STATE_HOME/treewarden` or the XDG default. */
function userStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'treewarden');
}

/** A cheap fingerprint of a directory tree: every path with its size and mtime. */
function fingerprint(dir: string): string {
  const entries: string[] = [];
  const walk = (path: string): void => {
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const child = join(path, name);
      try {
        const stats = statSync(child);
        entries.push(`${child} ${stats.size} ${stats.mtimeMs}`);
        if (stats.isDirectory()) walk(child);
      } catch {
        entries.push(`${child} gone`);
      }
    }
  };
  try {
    entries.push(`${dir} ${statSync(dir).mtimeMs}`);
  } catch {
    entries.push(`${dir} absent`);
  }
  walk(dir);
  return entries.join('\n');
}

export default function setup(): () => void {
  const userDir = userStateDir(process.env);
  const before = fingerprint(userDir);
  const home = mkdtempSync(join(tmpdir(), 'treewarden-suite-'));
  process.env.TREEWARDEN_HOME = home;
  return () => {
    rmSync(home, { recursive: true, force: true });
    if (fingerprint(userDir) !== before) {
      process.exitCode = 1;
      throw new Error(`The suite wrote into the user's own state dir ${userDir}: point that test at TREEWARDEN_HOME`);
    }
  };
}
