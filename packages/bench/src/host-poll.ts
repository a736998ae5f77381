/**
 * The host's system-view poll, as the app and `serve` run it while a view watches the whole
 * machine: a full read in the poll worker (structured-cloned to the main thread) and the rows
 * brought up to it in place (ProcessNode per process, CPU % from the previous read), which yields
 * the diff. No runs are held, so the host builds no children index and updates no membership.
 */
import { createSystemRows, createWorkerTableReader } from '@treewarden/host';

export interface HostPoll {
  /** One poll; resolves with the number of rows, 0 when the worker gave no table (its read bound passed). */
  poll(): Promise<number>;
  /** Polls so far that gave no table; the host keeps its last rows then, and the bench says so. */
  failures(): number;
  close(): Promise<void>;
}

export function createHostPoll(): HostPoll {
  const reader = createWorkerTableReader();
  const rows = createSystemRows();
  let failed = 0;
  return {
    async poll() {
      const table = await reader.readAll();
      if (table === null) {
        failed += 1;
        return 0;
      }
      rows.update(table.entries, table.readAtMs, []);
      return table.entries.size;
    },
    failures: () => failed,
    close: () => reader.close(),
  };
}
