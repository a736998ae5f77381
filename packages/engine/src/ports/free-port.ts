/**
 * Free a port: end each planned listener's tree with the revalidated tree kill (`killTree`:
 * identity re-check, SIGTERM, freeze, SIGKILL deepest first, verify), then check the port is no
 * longer held. Only listeners are targets (see plan-free-port.ts): a process that merely holds a
 * connection to the port is never one, and a refused plan signals nothing.
 */
import { killTree } from '../kill/kill-tree.js';
import type { KillOutcome } from '../kill/types.js';
import { pollUntil } from '../runtime/wait.js';
import { createTableReader } from '../table/reader.js';
import { type FreePortOptions, type FreePortPlan, onPort, PORT_POLL_MS } from './plan-free-port.js';
import { createPortReader } from './reader.js';
import type { NetSocket, PortListener, PortReader } from './types.js';

/** How long to wait, after the kills, for the kernel to drop the port (it does so at the last close). */
export const PORT_RELEASE_WAIT_MS = 2_000;

export type FreePortResult = 'freed' | 'nothing_listening' | 'refused' | 'survivors';

export interface FreePortOutcome {
  readonly result: FreePortResult;
  readonly outcomes: readonly KillOutcome[];
  /** Listeners on the port after the kills (a supervisor outside the tree may have restarted one). */
  readonly stillListening: readonly PortListener[];
  readonly error?: string;
}

/** Listeners still on the port, polled until none is left or PORT_RELEASE_WAIT_MS passed. */
async function waitForRelease(plan: FreePortPlan, ports: PortReader): Promise<PortListener[]> {
  let left: PortListener[] | null = null;
  const released = await pollUntil(
    async () => {
      const map = await ports.readAll();
      left =
        map === null
          ? null
          : [...map.listeners, ...map.unattributed.map(asAnonymous)].filter(onPort(plan.port, plan.proto));
      return left !== null && left.length === 0;
    },
    { deadlineMs: PORT_RELEASE_WAIT_MS, intervalMs: PORT_POLL_MS },
  );
  return released ? [] : (left ?? []);
}

/** A socket nobody visible holds, as a listener row with pid 0 ("unknown holder"). */
function asAnonymous(socket: NetSocket): PortListener {
  const { port, proto, family, address, inode } = socket;
  return { port, proto, family, address, pid: 0, startTime: '', inode };
}

function resultOf(outcomes: readonly KillOutcome[], stillListening: readonly PortListener[]): FreePortResult {
  if (outcomes.some((outcome) => outcome.result === 'refused')) return 'refused';
  if (outcomes.some((outcome) => outcome.result === 'kill_failed') || stillListening.length > 0) return 'survivors';
  return 'freed';
}

/**
 * Ends every target's tree with the revalidated kill, in turn. Each kill re-reads the table and
 * refuses a target whose start time changed since the preview; a refused plan signals nothing.
 */
export async function executeFreePort(plan: FreePortPlan, options: FreePortOptions = {}): Promise<FreePortOutcome> {
  if (plan.refusals.length > 0)
    return { result: 'refused', outcomes: [], stillListening: [], error: plan.refusals.join('; ') };
  if (plan.targets.length === 0) return { result: 'nothing_listening', outcomes: [], stillListening: [] };
  const outcomes: KillOutcome[] = [];
  for (const target of plan.targets) {
    outcomes.push(
      await killTree(target.identity, {
        ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
        // Off Linux the owner has no default reader: hand it the platform's.
        ...(process.platform === 'linux' ? {} : { reader: options.table ?? createTableReader() }),
      }),
    );
  }
  const stillListening = await waitForRelease(plan, options.ports ?? createPortReader());
  const result = resultOf(outcomes, stillListening);
  const errors = outcomes.flatMap((outcome) => (outcome.error === undefined ? [] : [outcome.error]));
  return { result, outcomes, stillListening, ...(errors.length > 0 ? { error: errors.join('; ') } : {}) };
}
