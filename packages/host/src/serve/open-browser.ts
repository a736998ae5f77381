/** Opens a URL in the user's browser; failure (no browser, no display) is ignored by design. */
import { execFile } from 'node:child_process';

function opener(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['explorer.exe', [url]];
  return ['xdg-open', [url]];
}

export function openBrowser(url: string): void {
  const [command, args] = opener(url);
  try {
    const child = execFile(command, args, { windowsHide: true }, () => {
      // Exit status and errors are not ours to report: the URL is printed anyway.
    });
    child.unref();
  } catch {
    // Not even spawnable: the printed URL is the fallback.
  }
}
