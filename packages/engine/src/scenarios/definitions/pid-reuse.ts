/**
 * Pid reuse made real in a private pid namespace (`unshare --pid --fork --mount-proc`, root):
 * the recorded victim dies, a bystander gets its pid, and the kill of the recorded victim either
 * hits the bystander (naive) or is refused because the identity no longer matches (Treewarden).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reportedCheck, textCheck } from '../checks.js';
import type { ScenarioDefinition } from '../types.js';

/** killTree for the probe inside the namespace; present once the engine is built. */
const ENGINE_DIST = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
/** Bound on the privilege probe (`unshare … true`). */
const PROBE_TIMEOUT_MS = 5000;
const PID_REUSE_TIMEOUT_S = 20;

let privilegeProbe: string | null | undefined;

/** Why a pid namespace cannot be made here, or null; asked once per process. */
export function pidNamespaceUnavailable(): string | null {
  if (privilegeProbe !== undefined) return privilegeProbe;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    privilegeProbe = `a pid namespace needs root (CAP_SYS_ADMIN) and this user is uid ${process.getuid()}: run as root to see pid reuse`;
    return privilegeProbe;
  }
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], {
      timeout: PROBE_TIMEOUT_MS,
      stdio: 'ignore',
    });
    privilegeProbe = null;
  } catch (error) {
    privilegeProbe = `could not create a pid namespace (unshare --pid --fork --mount-proc): ${(error as Error).message.split('\n')[0]}`;
  }
  return privilegeProbe;
}

export const pidReuse: ScenarioDefinition = {
  name: 'pid-reuse',
  title: 'Pid reuse: the recorded pid now belongs to someone else',
  explanation:
    "A supervisor records its worker's pid. The worker dies, and before the kill arrives the kernel hands the same pid to an unrelated process. Shown for real in a private pid namespace, where the recycled pid can be forced.",
  naiveFailure:
    'kill(pid) goes to whoever holds the pid now: the bystander dies, the intended target was already gone.',
  treewardenFix:
    'Every kill names (pid, start time) and re-reads the process first (on Linux through a pidfd opened after the check): the start time differs, so nothing is signalled and the bystander is untouched.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: { maxProcesses: 8, maxMs: 30_000 },
  naive: 'in-worker',
  unavailableReason: () => {
    if (!existsSync(ENGINE_DIST)) return `the engine is not built (${ENGINE_DIST} is missing): run npx tsc -b first`;
    return pidNamespaceUnavailable();
  },
  worker: (ctx) => ({
    command: 'unshare',
    args: ['--pid', '--fork', '--mount-proc', ctx.node, ctx.fixture('pid-reuse.mjs'), ctx.mode],
    timeoutSeconds: PID_REUSE_TIMEOUT_S,
  }),
  check: (evidence) => [
    reportedCheck(evidence, 'pid-reused'),
    evidence.ctx.mode === 'naive'
      ? textCheck('the naive kill hit the bystander', evidence.outcome.stderrTail, /WRONG PROCESS KILLED/)
      : textCheck('the bystander was untouched', evidence.outcome.stderrTail, /bystander \d+ untouched/),
  ],
};
