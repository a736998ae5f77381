/**
 * How a run's limits are enforced and whether it has its own cgroup, read from the engine's own
 * records (the run_start line of the ledger, the outcome), and the host's one cgroup probe.
 */
import { type CgroupProbe, probeCgroup, type RunOutcome, type RunStartRecord } from '@treewarden/engine';
import type { CgroupCapability } from '@treewarden/protocol';
import type { RunEnforcement } from './port.js';

/** The facts a run_start record or an outcome carries; null when neither says anything. */
export function enforcementOf(
  source: Pick<RunStartRecord | RunOutcome, 'limitEnforcement' | 'limitMethods' | 'cgroup'> | undefined,
): RunEnforcement | null {
  if (source === undefined) return null;
  const { limitEnforcement, limitMethods, cgroup } = source;
  if (limitEnforcement === undefined && limitMethods === undefined && cgroup === undefined) return null;
  return {
    ...(limitEnforcement === undefined ? {} : { limitEnforcement }),
    ...(limitMethods === undefined ? {} : { limitMethods: { ...limitMethods } }),
    ...(cgroup === undefined ? {} : { cgroup }),
  };
}

/** The probe as the protocol carries it (plain arrays; a probe that throws is "not available", saying why). */
export function probeCgroupCapability(probe: () => CgroupProbe = probeCgroup): CgroupCapability {
  try {
    const found = probe();
    return found.available
      ? { available: true, path: found.path, controllers: [...found.controllers] }
      : { available: false, reason: found.reason };
  } catch (error) {
    return {
      available: false,
      reason: `the cgroup probe failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
