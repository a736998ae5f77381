/** Runaway limits in words, for the run details: what was set, and which one ended the run. */
import type { LimitTrip, RunLimitsInput, RunView } from '@treewarden/protocol';

const MIB = 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(bytes % MIB === 0 ? 0 : 1)} MiB`;
}

export function formatLimits(limits: RunLimitsInput): string {
  const parts: string[] = [];
  if (limits.maxMemoryBytes !== undefined) parts.push(`memory ${mib(limits.maxMemoryBytes)}`);
  if (limits.maxProcs !== undefined) parts.push(`${limits.maxProcs} processes`);
  if (limits.maxCpuSeconds !== undefined) parts.push(`CPU ${limits.maxCpuSeconds} s`);
  if (limits.idleTimeoutSeconds !== undefined) parts.push(`idle ${limits.idleTimeoutSeconds} s`);
  return parts.join(' · ');
}

export function formatTrip(trip: LimitTrip): string {
  switch (trip.name) {
    case 'max-memory':
      return `tree memory ${mib(trip.observed)} > ${mib(trip.value)}`;
    case 'max-procs':
      return `${trip.observed} live processes > ${trip.value}`;
    case 'max-cpu':
      return `tree CPU ${trip.observed.toFixed(1)} s > ${trip.value} s`;
    case 'idle-timeout':
      return `no output for ${trip.observed.toFixed(1)} s (idle timeout ${trip.value} s)`;
  }
}

/** Each limit's method in words ("max-procs: cgroup.procs"), for the tooltip of the enforcement line. */
function formatMethods(methods: NonNullable<RunView['limitMethods']>): string {
  return Object.entries(methods)
    .map(([name, method]) => `${name}: ${method}`)
    .join(', ');
}

/**
 * Which path enforced the run's limits: "by cgroup /sys/fs/…/<runId>" or "by polling"; null when
 * no record says (runs without limits or cgroup, or recorded before this was kept).
 */
export function formatEnforcement(run: Pick<RunView, 'limitEnforcement' | 'limitMethods' | 'cgroup'>): string | null {
  const methods = run.limitMethods === undefined ? '' : ` (${formatMethods(run.limitMethods)})`;
  if (run.cgroup !== undefined) return `by cgroup ${run.cgroup}${methods}`;
  if (run.limitEnforcement === 'polling') return `by polling${methods}`;
  return null;
}
