/**
 * What a run's tree uses, from the table the owned-tree refresh already read: resident memory and
 * live members now, and CPU time so far including members that already exited. No extra reads:
 * every number comes from the stat line the refresh parsed.
 */
import { isZombie, type ProcessEntry, type ProcessIdentity, type ProcessTable } from '../table/types.js';

export interface TreeUsage {
  /** Sum of the live members' RSS. */
  readonly memoryBytes: number;
  /** Live members; zombies count as stopped. */
  readonly liveProcs: number;
  /** CPU time of the tree so far, members that exited included; never goes down. */
  readonly cpuMs: number;
}

export interface TreeUsageMeter {
  /** Folds one refresh in; `owned` are the owner's live members after it took that table (zombies count as exited). */
  update(table: ProcessTable, owned: readonly ProcessIdentity[]): TreeUsage;
}

interface SeenMember {
  readonly startTime: string;
  readonly ppid: number;
  /** Own CPU plus the CPU of the children it waited for, at the last read that saw it. */
  readonly cpuMs: number;
}

function totalCpuMs(entry: ProcessEntry): number {
  return entry.cpuTimeMs + (entry.childrenCpuTimeMs ?? 0);
}

/**
 * CPU accounting that never counts a process twice, so a cap can never trip early. A member that
 * vanished was reaped: if its parent is still a live member, the parent's cutime/cstime now holds
 * (or, once it waits, will hold) that CPU, so it is not added; if the parent is gone or outside the
 * tree (the guardian, init), its last seen CPU is kept in `exitedMs`. The CPU a member used between
 * the last read and its exit is missed when nobody in the tree waits for it: an underestimate,
 * never an overestimate. The total is the maximum seen so far, so it never goes down.
 */
export function createTreeUsageMeter(): TreeUsageMeter {
  // Keyed by pid, checked against the start time: no string built per member per refresh.
  let seen = new Map<number, SeenMember>();
  let exitedMs = 0;
  let peakCpuMs = 0;

  return {
    update(table, owned) {
      const current = new Map<number, SeenMember>();
      let memoryBytes = 0;
      let liveProcs = 0;
      let liveCpuMs = 0;
      for (const identity of owned) {
        const entry = table.entries.get(identity.pid);
        if (entry === undefined || entry.startTime !== identity.startTime) continue;
        const cpuMs = totalCpuMs(entry);
        current.set(identity.pid, { startTime: identity.startTime, ppid: entry.ppid, cpuMs });
        liveCpuMs += cpuMs;
        if (isZombie(entry)) continue;
        liveProcs += 1;
        memoryBytes += entry.rssBytes;
      }
      for (const [pid, member] of seen) {
        if (current.get(pid)?.startTime === member.startTime) continue; // still here
        if (!current.has(member.ppid)) exitedMs += member.cpuMs; // no live parent in the tree will count it
      }
      seen = current;
      peakCpuMs = Math.max(peakCpuMs, liveCpuMs + exitedMs);
      return { memoryBytes, liveProcs, cpuMs: peakCpuMs };
    },
  };
}
