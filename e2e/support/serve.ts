/** Starts the real `treewarden serve` and stops it by the pid it recorded. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_MAIN, REPO_ROOT } from './env';

/** serve prints its URL as the first stdout line; it must do so within this bound. */
export const SERVE_START_TIMEOUT_MS = 20_000;
/** After SIGTERM, serve ends its runs and exits; SIGKILL it after this bound. */
export const SERVE_STOP_TIMEOUT_MS = 15_000;
const STOP_POLL_MS = 100;

export interface ServeHandle {
  url: string;
  home: string;
  pid: number;
  stop(): Promise<void>;
}

function readFirstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`treewarden serve printed no URL within ${SERVE_START_TIMEOUT_MS} ms; stderr: ${stderr}`)),
      SERVE_START_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      resolve(buffer.slice(0, newline).trim());
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`treewarden serve exited with ${code} before printing its URL; stderr: ${stderr}`));
    });
  });
}

/** Signal 0 only checks: true while `pid` exists (the caller must have recorded it itself). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
  }
  return !isAlive(pid);
}

export interface StartServeOptions {
  /** Let serve open its launch page (with e.g. TREEWARDEN_BROWSER in `env`); default --no-open. */
  readonly open?: boolean;
  readonly env?: Readonly<Record<string, string>>;
}

export async function startServe(options: StartServeOptions = {}): Promise<ServeHandle> {
  const home = mkdtempSync(join(tmpdir(), 'treewarden-e2e-'));
  const args = [CLI_MAIN, 'serve', '--port', '0', ...(options.open === true ? [] : ['--no-open'])];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env, TREEWARDEN_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  let url: string;
  try {
    if (pid === undefined) throw new Error(`could not start ${CLI_MAIN}`);
    url = await readFirstLine(child);
    if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(url)) throw new Error(`unexpected first line from serve: ${url}`);
  } catch (error) {
    // A serve that never came up must not outlive the run, nor leave its private home behind.
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  // Keep draining output so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url,
    home,
    pid,
    async stop() {
      if (isAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        if (!(await waitForExit(pid, SERVE_STOP_TIMEOUT_MS))) {
          process.kill(pid, 'SIGKILL');
          await waitForExit(pid, SERVE_STOP_TIMEOUT_MS);
        }
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
