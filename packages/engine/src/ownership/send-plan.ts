/**
 * Sends one planned signal. A group signal answered EPERM is re-checked on a fresh read: macOS
 * `killpg` answers EPERM for a group whose members all exited but are not reaped, so a
 * zombie-only (or empty) group counts as gone; a running member keeps the EPERM fatal.
 */
import type { SignalName, SignalOps } from '../signal/types.js';
import type { TableReader } from '../table/types.js';
import { isZombie } from '../table/types.js';
import { GroupEpermError, NoTableError, ProcessEpermError } from './errors.js';
import type { SignalTarget } from './signal-plan.js';

async function confirmGroupEperm(pgid: number, reader: TableReader): Promise<void> {
  const table = await reader.readAll();
  if (table === null) throw new NoTableError();
  const running = [...table.entries.values()].filter((e) => e.pgid === pgid && !isZombie(e)).map((e) => e.pid);
  if (running.length > 0) throw new GroupEpermError(pgid, running);
}

export async function sendPlan(
  plan: readonly SignalTarget[],
  signal: SignalName,
  signals: SignalOps,
  reader: TableReader,
): Promise<{ groups: number[]; pids: number[] }> {
  const groups: number[] = [];
  const pids: number[] = [];
  // One target that cannot be signalled must not shield the others: finish, then throw the first error.
  let firstError: unknown;
  for (const target of plan) {
    try {
      if (target.kind === 'group') {
        const result = signals.signalGroup(target.pgid, signal);
        if (result === 'eperm') await confirmGroupEperm(target.pgid, reader);
        if (result === 'sent') groups.push(target.pgid);
      } else {
        const result = signals.signalProcess(target.identity, signal);
        if (result === 'eperm') throw new ProcessEpermError(target.identity.pid);
        if (result === 'sent') pids.push(target.identity.pid);
      }
    } catch (error) {
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
  return { groups, pids };
}
