/**
 * Kernel threads are told by their place under kthreadd (pid 2), and only where pid 2 is kthreadd:
 * on this machine's real table every ppid-2 entry is a kernel thread (PF_KTHREAD), and in a fresh
 * pid namespace, where pid 2 is a plain sleeper, nothing is taken for one. Agent recognition skips
 * them, so their environ (unreadable, never cached) is not read on every scan.
 */
import { describe, expect, it } from 'vitest';
import { isConsidered } from '../../src/agents/sessions/recognise.js';
import { isKernelThreadEntry } from '../../src/table/kernel-threads.js';
import { readProcTable } from '../../src/table/linux-proc.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import { pidNamespaceUnavailable, runInPidNamespace } from '../helpers/pid-namespace.js';

const PF_KTHREAD = 0x00200000;
const kthreaddHere = process.platform === 'linux' && ((readStatFields(2)?.flags ?? 0) & PF_KTHREAD) !== 0;

describe('kernel threads', () => {
  it.skipIf(!kthreaddHere)('are exactly the ppid-2 entries of the real table, and never considered for agents', () => {
    const entries = [...readProcTable().entries.values()];
    const kernel = entries.filter((entry) => isKernelThreadEntry(entry));
    expect(kernel.length).toBeGreaterThan(0);
    for (const entry of kernel) {
      expect((readStatFields(entry.pid)?.flags ?? PF_KTHREAD) & PF_KTHREAD).not.toBe(0);
      expect(isConsidered(entry, entry.uid)).toBe(false);
    }
    const self = entries.find((entry) => entry.pid === process.pid);
    expect(self && isKernelThreadEntry(self)).toBe(false);
    expect(self && isConsidered(self, self.uid)).toBe(true);
  });

  const unavailable = pidNamespaceUnavailable('table/kernel-threads.js');
  it.skipIf(unavailable !== null)('are none in a pid namespace, where pid 2 is an ordinary process', async () => {
    const result = await runInPidNamespace<{
      pid2Exists: boolean;
      pid2IsKernelThread: boolean;
      childOfPid2IsKernelThread: boolean;
    }>('kernel-threads-namespace.mjs');
    expect(result).toEqual({ pid2Exists: true, pid2IsKernelThread: false, childOfPid2IsKernelThread: false });
  });
});
