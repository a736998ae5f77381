/**
 * Pid reuse made real: a fixture runs as pid 1 of a fresh pid namespace (`unshare --pid --fork
 * --mount-proc`), where it can force a pid onto another process (ns_last_pid). It loads the built
 * engine (it must run inside the namespace to see its pid numbers) and prints one JSON line last;
 * when it exits, the kernel ends everything in the namespace.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fixturePath } from '../../../../test-support/index.js';

export const ENGINE_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
/** Bound on one namespace run (node start-up and the engine's import on a loaded 2-core box). */
const NAMESPACE_RUN_MS = 20_000;

/** Why a namespace fixture cannot run here, or null; `distFile` is a built module it loads. */
export function pidNamespaceUnavailable(distFile: string): string | null {
  if (process.platform !== 'linux') return 'pid namespaces are Linux-only';
  if (process.getuid?.() !== 0) return 'unshare --pid needs root';
  if (!existsSync('/usr/bin/unshare')) return 'unshare (util-linux) is not installed';
  if (!existsSync(`${ENGINE_DIST}${distFile}`)) return `the engine is not built (${ENGINE_DIST}); run npx tsc -b`;
  return null;
}

/**
 * Runs `fixture` (from the fixtures dir) in a fresh pid namespace; its last stdout line, parsed
 * as the shape the caller names (the fixture's own account, which the test then asserts on).
 */
export async function runInPidNamespace<Result>(fixture: string): Promise<Result> {
  const { stdout } = await promisify(execFile)(
    '/usr/bin/unshare',
    ['--pid', '--fork', '--mount-proc', process.execPath, fixturePath(fixture), ENGINE_DIST],
    { timeout: NAMESPACE_RUN_MS, killSignal: 'SIGKILL' },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Result;
}
