/**
 * For tests of threads that call koffi: a scratch directory for the stand-in worker and script
 * files, koffi's path for them to load, and a node child to run the case in. A koffi thread stopped
 * mid-definition aborts its whole process (engine/src/runtime/native-threads.ts), so each case runs
 * in a child of its own and its death by signal is the finding, not the test runner's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** koffi as the engine resolves it: the one module (and native addon) the product loads. */
export const KOFFI_PATH = createRequire(
  fileURLToPath(new URL('../packages/engine/package.json', import.meta.url)),
).resolve('koffi');
/** Bound on one node child (start-up on a loaded machine). */
const CHILD_TIMEOUT_MS = 25_000;

/** A temp directory removed after the file's tests. */
export function useScratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface NodeChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** stdout and stderr together, for a failure's message. */
  out: string;
}

/** Runs node with `args` to its end (SIGKILLed after CHILD_TIMEOUT_MS). */
export function runNodeChild(args: readonly string[]): NodeChildResult {
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  return { status: child.status, signal: child.signal, stdout: child.stdout, out: child.stdout + child.stderr };
}
