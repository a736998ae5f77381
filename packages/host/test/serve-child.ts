/**
 * The built `treewarden serve` as a real child process (a crash shows as an exit), on a private
 * state dir, stopped by the pid this helper recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from '../../engine/test/helpers/index.js';

const CLI = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
/** Node start-up plus the first table read on a loaded 2-core box. */
export const SERVE_START_WAIT_MS = 45_000;
/** After SIGTERM serve ends its runs and exits. */
export const SERVE_EXIT_WAIT_MS = 45_000;

export interface ServeChild {
  readonly child: ChildProcess;
  readonly url: URL;
  readonly port: number;
  readonly token: string;
  readonly stateDir: string;
  /** Everything serve wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code (null after a signal); SIGKILL if it does not exit within the bound. */
  stop(): Promise<number | null>;
  /** stop() if still running, then remove the state dir. */
  dispose(): Promise<void>;
}

export interface ServeChildOptions {
  /** Let serve open its launch page (default --no-open). */
  readonly open?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  /** A state dir prepared by the test; default a fresh temp dir. */
  readonly stateDir?: string;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), SERVE_EXIT_WAIT_MS);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

export function startServeChild(options: ServeChildOptions = {}): Promise<ServeChild> {
  const stateDir = options.stateDir ?? makeTempDir('tw-serve-');
  const args = [CLI, 'serve', '--port', '0', ...(options.open === true ? [] : ['--no-open'])];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...options.env, TREEWARDEN_HOME: stateDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const fail = (message: string) => {
      child.kill('SIGKILL');
      if (options.stateDir === undefined) removeTempDir(stateDir);
      reject(new Error(`${message}: stdout ${out} stderr ${err}`));
    };
    const timer = setTimeout(() => fail(`serve printed no URL within ${SERVE_START_WAIT_MS} ms`), SERVE_START_WAIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early with ${code}: ${out} ${err}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      const url = new URL(out.slice(0, newline));
      resolve({
        child,
        url,
        port: Number(url.port),
        token: url.searchParams.get('token') ?? '',
        stateDir,
        stderr: () => err,
        stop: () => stopChild(child),
        dispose: async () => {
          await stopChild(child);
          if (options.stateDir === undefined) removeTempDir(stateDir);
        },
      });
    });
  });
}
