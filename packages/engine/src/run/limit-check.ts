/**
 * Checks a run's limits on each owned-tree refresh. Resource limits read the table the refresh
 * already took (tree-usage.ts); the idle timeout compares the clock with the last output seen.
 * The first limit over its value is the one reported; the order below is the order they are
 * checked in when several trip in one refresh.
 */
import type { ProcessIdentity, ProcessTable } from '../table/types.js';
import type { LimitTrip, RunLimits } from './limits.js';
import { createTreeUsageMeter, type TreeUsage } from './tree-usage.js';

export interface LimitChecker {
  /** The worker wrote to stdout or stderr: the idle clock starts again. */
  noteOutput(): void;
  /** One refresh's table (null when none could be read) → the limit that tripped, or null. */
  check(table: ProcessTable | null, owned: readonly ProcessIdentity[]): LimitTrip | null;
}

const BYTES_PER_MEGABYTE = 1024 * 1024;

function overResourceLimit(limits: RunLimits, usage: TreeUsage): LimitTrip | null {
  const { maxMemoryBytes, maxProcs, maxCpuSeconds } = limits;
  if (maxMemoryBytes !== undefined && usage.memoryBytes > maxMemoryBytes)
    return { name: 'max-memory', value: maxMemoryBytes, observed: usage.memoryBytes };
  if (maxProcs !== undefined && usage.liveProcs > maxProcs)
    return { name: 'max-procs', value: maxProcs, observed: usage.liveProcs };
  if (maxCpuSeconds !== undefined && usage.cpuMs > maxCpuSeconds * 1000)
    return { name: 'max-cpu', value: maxCpuSeconds, observed: usage.cpuMs / 1000 };
  return null;
}

function needsTable(limits: RunLimits): boolean {
  return limits.maxMemoryBytes !== undefined || limits.maxProcs !== undefined || limits.maxCpuSeconds !== undefined;
}

export function createLimitChecker(limits: RunLimits, now: () => number): LimitChecker {
  const meter = createTreeUsageMeter();
  const watchTable = needsTable(limits);
  let lastOutputAtMs = now();
  return {
    noteOutput() {
      lastOutputAtMs = now();
    },
    check(table, owned) {
      if (watchTable && table !== null) {
        const tripped = overResourceLimit(limits, meter.update(table, owned));
        if (tripped !== null) return tripped;
      }
      const idleMs = now() - lastOutputAtMs;
      if (limits.idleTimeoutSeconds !== undefined && idleMs >= limits.idleTimeoutSeconds * 1000)
        return { name: 'idle-timeout', value: limits.idleTimeoutSeconds, observed: idleMs / 1000 };
      return null;
    },
  };
}

/** For messages: `memory 612.3 MB > 512 MB`. */
export function describeTrip(trip: LimitTrip): string {
  switch (trip.name) {
    case 'max-memory':
      return `tree memory ${(trip.observed / BYTES_PER_MEGABYTE).toFixed(1)} MiB passed max-memory ${(trip.value / BYTES_PER_MEGABYTE).toFixed(1)} MiB`;
    case 'max-procs':
      return `tree had ${trip.observed} live processes, over max-procs ${trip.value}`;
    case 'max-cpu':
      return `tree CPU time ${trip.observed.toFixed(2)} s passed max-cpu ${trip.value} s`;
    case 'idle-timeout':
      return `no output for ${trip.observed.toFixed(1)} s (idle-timeout ${trip.value} s)`;
  }
}
