/**
 * Opens the launch page (a file path: never a URL with the token, which would land in the
 * opener's and the browser's argv) in the user's browser. `$TREEWARDEN_BROWSER` names another
 * program to run with the path as its only argument (no shell). Failure (no browser, no display)
 * is ignored by design: the URL is printed anyway.
 */
import { execFile } from 'node:child_process';

export const BROWSER_ENV = 'TREEWARDEN_BROWSER';

function opener(path: string, env: NodeJS.ProcessEnv): [string, string[]] {
  const custom = env[BROWSER_ENV];
  if (custom !== undefined && custom !== '') return [custom, [path]];
  if (process.platform === 'darwin') return ['open', [path]];
  if (process.platform === 'win32') return ['explorer.exe', [path]];
  return ['xdg-open', [path]];
}

export function openInBrowser(path: string, env: NodeJS.ProcessEnv = process.env): void {
  const [command, args] = opener(path, env);
  try {
    const child = execFile(command, args, { windowsHide: true }, () => {
      // Exit status and errors are not ours to report: the URL is printed anyway.
    });
    child.unref();
  } catch {
    // Not even spawnable: the printed URL is the fallback.
  }
}
