/**
 * Checks a run's limits on each owned-tree refresh. Resource limits read the table the refresh
 * already took (tree-usage.ts); the idle timeout compares the clock with the last output seen.
 * The first limit over its value is the one reported; the order below is the order they are
 * checked in when several trip in one refresh.
 */
import type { ProcessIdentity, ProcessTable } from '../table/types.js';
import { type RunCgroup, readCgroupCpuUsec, readCgroupMemoryBytes, readCgroupPids } from './cgroup.js';
import type { LimitMethods, LimitTrip, RunLimits } from './limits.js';
import { createTreeUsageMeter, type TreeUsage } from './tree-usage.js';

export interface LimitChecker {
  /** The worker wrote to stdout or stderr: the idle clock starts again. */
  noteOutput(): void;
  /** One refresh's table (null when none could be read) → the limit that tripped, or null. */
  check(table: ProcessTable | null, owned: readonly ProcessIdentity[]): LimitTrip | null;
  /** Per limit set, what it is checked against (recorded with the run). */
  readonly methods: LimitMethods;
}

/** Usage the run's cgroup gives exactly; a null field is not available (the table's is used). */
interface CgroupUsage {
  readonly liveProcs: number | null;
  readonly cpuMs: number | null;
  readonly memoryBytes: number | null;
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

function methodsFor(limits: RunLimits, cgroup: RunCgroup | undefined): LimitMethods {
  const memoryMethod = cgroup?.controllers.includes('memory') === true ? 'memory.stat' : 'polling';
  return {
    ...(limits.maxMemoryBytes === undefined ? {} : { 'max-memory': memoryMethod }),
    ...(limits.maxProcs === undefined ? {} : { 'max-procs': cgroup === undefined ? 'polling' : 'cgroup.procs' }),
    ...(limits.maxCpuSeconds === undefined ? {} : { 'max-cpu': cgroup === undefined ? 'polling' : 'cpu.stat' }),
    ...(limits.idleTimeoutSeconds === undefined ? {} : { 'idle-timeout': 'output' }),
  } as const satisfies LimitMethods;
}

function readCgroupUsage(cgroup: RunCgroup, methods: LimitMethods): CgroupUsage {
  const usec = methods['max-cpu'] === 'cpu.stat' ? readCgroupCpuUsec(cgroup.path) : null;
  return {
    liveProcs: methods['max-procs'] === 'cgroup.procs' ? (readCgroupPids(cgroup.path)?.length ?? null) : null,
    cpuMs: usec === null ? null : usec / 1000,
    memoryBytes: methods['max-memory'] === 'memory.stat' ? readCgroupMemoryBytes(cgroup.path) : null,
  };
}

/**
 * The cgroup's exact numbers where it has them, the table's otherwise. A number neither gives
 * (no table this refresh) counts as 0: a missed check, never a false trip.
 */
function mergeUsage(polled: TreeUsage | null, exact: CgroupUsage | null): TreeUsage | null {
  if (exact === null) return polled;
  return {
    memoryBytes: exact.memoryBytes ?? polled?.memoryBytes ?? 0,
    liveProcs: exact.liveProcs ?? polled?.liveProcs ?? 0,
    cpuMs: exact.cpuMs ?? polled?.cpuMs ?? 0,
  };
}

/** With `cgroup`, the limits it counts exactly are read from it (see methodsFor); the rest by polling. */
export function createLimitChecker(limits: RunLimits, now: () => number, cgroup?: RunCgroup): LimitChecker {
  const meter = createTreeUsageMeter();
  const watchTable = needsTable(limits);
  const methods = methodsFor(limits, cgroup);
  let lastOutputAtMs = now();
  return {
    methods,
    noteOutput() {
      lastOutputAtMs = now();
    },
    check(table, owned) {
      if (watchTable) {
        const polled = table === null ? null : meter.update(table, owned);
        const usage = mergeUsage(polled, cgroup === undefined ? null : readCgroupUsage(cgroup, methods));
        const tripped = usage === null ? null : overResourceLimit(limits, usage);
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
