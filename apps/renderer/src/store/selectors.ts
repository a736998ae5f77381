/** Derived reads shared by components; each takes the state and returns a stable-enough value. */
import type { LeaseView, RunView } from '@treewarden/protocol';
import type { AppState } from './types';

export function selectLease(state: AppState, leaseId: string | null): LeaseView | null {
  if (leaseId === null) return null;
  return state.snapshot?.leases.find((lease) => lease.id === leaseId) ?? null;
}

export function selectRun(state: AppState, runId: string | null): RunView | null {
  if (runId === null || !state.snapshot) return null;
  for (const lease of state.snapshot.leases) {
    const run = lease.runs.find((candidate) => candidate.id === runId);
    if (run) return run;
  }
  return null;
}
