/**
 * Kernel threads by their place in the table: on Linux every one is kthreadd (pid 2) or its child.
 * Inside a pid namespace (a container) pid 2 is an ordinary process and no kernel thread is
 * visible, so the rule holds only where pid 2 really is kthreadd — read once.
 */
import { readStatFields } from './linux-stat.js';

/** `PF_KTHREAD` from include/linux/sched.h. */
const PF_KTHREAD = 0x00200000;
const KTHREADD_PID = 2;

let kthreaddAtPid2: boolean | undefined;

function isKthreaddPid2(): boolean {
  kthreaddAtPid2 ??= process.platform === 'linux' && ((readStatFields(KTHREADD_PID)?.flags ?? 0) & PF_KTHREAD) !== 0;
  return kthreaddAtPid2;
}

/** Whether `entry` is kthreadd or a kernel thread it started (a user-mode helper only until its exec). */
export function isKernelThreadEntry(entry: { readonly pid: number; readonly ppid: number }): boolean {
  return (entry.pid === KTHREADD_PID || entry.ppid === KTHREADD_PID) && isKthreaddPid2();
}
