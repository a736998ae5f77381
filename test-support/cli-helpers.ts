/**
 * Runs the BUILT CLI (`node apps/cli/dist/main.js`), as users do. The tests rely on a fresh
 * `npx tsc -b` (`npm test` builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI_MAIN = fileURLToPath(new URL('../apps/cli/dist/main.js', import.meta.url));
/** Bound on one CLI invocation in these tests (node start-up on a loaded 2-core machine included). */
export const CLI_RUN_TIMEOUT_MS = 25_000;
/**
 * A test's own timeout when it runs the CLI `count` times one after another: each run may take up
 * to CLI_RUN_TIMEOUT_MS (vitest's default 30 s was met by eight runs at ~3.7 s each under CI's load).
 */
export function cliRunsTimeoutMs(count: number): number {
  return count * CLI_RUN_TIMEOUT_MS + 5_000;
}

/**
 * Fails loudly when the CLI was never built. Staleness is not checked by mtime: an incremental
 * `tsc -b` skips rewriting outputs whose text did not change, so mtimes prove nothing.
 */
export function assertBuilt(): void {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run "npx tsc -b" from the repo root first`);
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly result: Promise<CliResult>;
}

export interface CollectOptions {
  /** What the child is, for the timeout's message. */
  readonly description: string;
  readonly timeoutMs: number;
  /** SIGKILL the child when the bound passes (else it is left to the test's process tracker). */
  readonly killOnTimeout?: boolean;
}

/** Everything a child prints, and how it ended, once it closed; rejects past the bound. */
export function collectOutput(child: ChildProcess, options: CollectOptions): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (options.killOnTimeout === true) child.kill('SIGKILL');
      reject(new Error(`${options.description} did not finish within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function startCli(args: readonly string[], env: Readonly<Record<string, string>> = {}): CliProcess {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = collectOutput(child, {
    description: `treewarden ${args.join(' ')}`,
    timeoutMs: CLI_RUN_TIMEOUT_MS,
    killOnTimeout: true,
  });
  return { child, result };
}

export function runCli(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliResult> {
  return startCli(args, env).result;
}
