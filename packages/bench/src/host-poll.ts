/**
 * The host's system-view poll, as the app and `serve` run it while a view watches the whole
 * machine: a full read in the poll worker (structured-cloned to the main thread), the children
 * index, the rows (ProcessNode per process, CPU % from the previous read) and the diff against
 * the previous rows. No runs are held, so membership updates are empty.
 */
import { indexChildren } from '@treewarden/engine';
import { buildSystemTable, createCpuTracker, createWorkerTableReader, diffSystem } from '@treewarden/host';

export interface HostPoll {
  /** One poll; resolves with the number of rows. */
  poll(): Promise<number>;
  close(): Promise<void>;
}

export function createHostPoll(): HostPoll {
  const reader = createWorkerTableReader();
  const cpu = createCpuTracker();
  let previous: ReturnType<typeof buildSystemTable> | null = null;
  return {
    async poll() {
      const table = await reader.readAll();
      if (table === null) throw new Error('table bench: the host poll worker read no table');
      indexChildren(table.entries);
      const nodes = buildSystemTable(table.entries, table.readAtMs, cpu, []);
      diffSystem(previous, nodes);
      previous = nodes;
      return nodes.size;
    },
    close: () => reader.close(),
  };
}
