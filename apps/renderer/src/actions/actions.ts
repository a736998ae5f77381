/**
 * What the buttons do: each sends one command through the host and records its outcome in the
 * store. Nothing here decides whether a kill is safe; the host revalidates every identity.
 */
import type { ActivityEntry, Identity, KillReport, RunLimitsInput } from '@treewarden/protocol';
import { identityKey } from '../model/identity';
import { useAppStore } from '../store/store';
import type { ActionKind, KillRequest } from '../store/types';
import { send } from '../transport/host';

const store = useAppStore;

async function track<T>(key: string, label: string, work: () => Promise<T>): Promise<T> {
  store.getState().beginAction(key, label);
  try {
    return await work();
  } finally {
    store.getState().endAction(key);
  }
}

function pushFailure(kind: ActionKind, title: string, error: string, runId: string | null = null): void {
  store.getState().pushOutcome({ kind, ok: false, title, message: error, classification: null, reports: [], runId });
}

export function describeKill(report: KillReport): string {
  switch (report.result) {
    case 'killed':
      return `Killed ${report.killed.length} process${report.killed.length === 1 ? '' : 'es'}`;
    case 'already_gone':
      return 'Already gone';
    case 'kill_failed':
      return `Kill failed: ${report.survivors.length} survivor${report.survivors.length === 1 ? '' : 's'}`;
    case 'refused':
      return 'Refused';
  }
}

export function killKey(target: Identity): string {
  return `kill:${identityKey(target)}`;
}

export async function requestKillTree(request: KillRequest): Promise<void> {
  const { target } = request;
  const what = `${request.scope === 'subtree' ? 'Subtree' : 'Tree'} of pid ${target.pid} (${request.command})`;
  await track(killKey(target), 'Killing…', async () => {
    const reply = await send<'killTree'>({ type: 'killTree', target });
    if (!reply.ok) return pushFailure('kill', `${what}: refused`, reply.error, request.runId);
    const report = reply.result;
    store.getState().pushOutcome({
      kind: 'kill',
      ok: report.result === 'killed' || report.result === 'already_gone',
      title: `${what}: ${describeKill(report)}`,
      message: report.error ?? null,
      classification: null,
      reports: [report],
      runId: request.runId,
    });
  });
}

export async function requestRetryRun(runId: string): Promise<void> {
  await track(`retry:${runId}`, 'Retrying…', async () => {
    const reply = await send<'retryRun'>({ type: 'retryRun', runId });
    if (!reply.ok) return pushFailure('retry', `Retry of ${runId} failed`, reply.error, runId);
    store.getState().selectRun(reply.result.runId, reply.result.leaseId);
    const failed = reply.result.launchError ?? null;
    store.getState().pushOutcome({
      kind: 'retry',
      ok: failed === null,
      title: failed === null ? `Retried ${runId} as ${reply.result.runId}` : `Retry of ${runId} could not start`,
      message: failed,
      classification: null,
      reports: [],
      runId: reply.result.runId,
    });
  });
}

export async function requestReleaseLease(leaseId: string, name: string): Promise<void> {
  await track(`release:${leaseId}`, 'Releasing…', async () => {
    const reply = await send<'releaseLease'>({ type: 'releaseLease', leaseId });
    if (!reply.ok) return pushFailure('release', `Release of lease ${name} failed`, reply.error);
    const { released, kills } = reply.result;
    store.getState().pushOutcome({
      kind: 'release',
      ok: released && kills.every((kill) => kill.result !== 'kill_failed' && kill.result !== 'refused'),
      title: released
        ? `Released lease ${name}${kills.length ? `, ended ${kills.length} tree${kills.length === 1 ? '' : 's'}` : ''}`
        : `Lease ${name} was not released`,
      message: null,
      classification: null,
      reports: kills,
      runId: null,
    });
  });
}

/** Cleans leaks of runs on record; `unregistered` trees only when asked for, separately. */
export function cleanKey(runId?: string, includeUnregistered = false): string {
  return `clean:${runId ?? 'all'}${includeUnregistered ? ':unregistered' : ''}`;
}

export async function requestCleanOrphans(runId?: string, includeUnregistered = false): Promise<void> {
  await track(cleanKey(runId, includeUnregistered), 'Cleaning…', async () => {
    const reply = await send<'cleanOrphans'>({
      type: 'cleanOrphans',
      ...(runId ? { runId } : {}),
      ...(includeUnregistered ? { includeUnregistered } : {}),
    });
    if (!reply.ok) return pushFailure('clean', 'Orphan cleanup failed', reply.error, runId ?? null);
    const { kills } = reply.result;
    const failed = kills.filter((kill) => kill.result === 'kill_failed' || kill.result === 'refused');
    store.getState().pushOutcome({
      kind: 'clean',
      ok: failed.length === 0,
      title:
        kills.length === 0
          ? 'No orphans to clean'
          : `Cleaned ${kills.length - failed.length} of ${kills.length} leaked tree${kills.length === 1 ? '' : 's'}`,
      message:
        failed
          .map((kill) => kill.error)
          .filter(Boolean)
          .join('; ') || null,
      classification: null,
      reports: kills,
      runId: runId ?? null,
    });
  });
}

export interface StartRunForm {
  command: string;
  args: string[];
  cwd: string;
  timeoutSeconds: number;
  leaseName: string;
  /** Runaway limits, already checked against the protocol's bounds by the form. */
  limits?: RunLimitsInput;
  /** Run in its own cgroup v2 (offered only where the host's probe found one). */
  cgroup?: boolean;
}

export async function requestStartRun(form: StartRunForm): Promise<boolean> {
  return track('start', 'Starting…', async () => {
    const reply = await send<'startRun'>({
      type: 'startRun',
      command: form.command,
      args: form.args,
      timeoutSeconds: form.timeoutSeconds,
      ...(form.cwd ? { cwd: form.cwd } : {}),
      ...(form.leaseName ? { leaseName: form.leaseName } : {}),
      ...(form.limits === undefined ? {} : { limits: form.limits }),
      ...(form.cgroup === true ? { cgroup: true } : {}),
    });
    if (!reply.ok) {
      pushFailure('start', `Could not start ${form.command}`, reply.error);
      return false;
    }
    store.getState().setView('runs');
    store.getState().selectRun(reply.result.runId, reply.result.leaseId);
    // The host answers for the start itself: a program that could not be launched is no success.
    const failed = reply.result.launchError ?? null;
    store.getState().pushOutcome({
      kind: 'start',
      ok: failed === null,
      title:
        failed === null
          ? `Started ${form.command} as ${reply.result.runId}`
          : `Could not start ${form.command} (${reply.result.runId})`,
      message: failed,
      classification: null,
      reports: [],
      runId: reply.result.runId,
    });
    return true;
  });
}

export async function requestRunScenario(
  name: string,
  naive = false,
  pace: 'normal' | 'slow' = 'normal',
): Promise<void> {
  await track(`scenario:${name}${naive ? ':naive' : ''}`, 'Starting…', async () => {
    const reply = await send<'runScenario'>({ type: 'runScenario', name, naive, pace });
    if (!reply.ok) return pushFailure('scenario', `Scenario ${name} did not start`, reply.error);
    store.getState().noteScenarioLaunch(name, naive, reply.result.runId, pace);
    // A naive worker is no leased run: its card, not the Runs tab, shows what it left behind.
    if (!naive) {
      store.getState().setView('runs');
      store.getState().selectRun(reply.result.runId, reply.result.leaseId);
    }
    store.getState().pushOutcome({
      kind: 'scenario',
      ok: true,
      title: `Scenario ${name}${naive ? ' (naive)' : ''}${pace === 'slow' ? ' at a slow pace' : ''} started as ${reply.result.runId}`,
      message: null,
      classification: null,
      reports: [],
      runId: reply.result.runId,
    });
  });
}

export async function loadScenarios(): Promise<void> {
  const reply = await send<'listScenarios'>({ type: 'listScenarios' });
  if (reply.ok) store.getState().setScenarios(reply.result.scenarios);
  else pushFailure('scenario', 'Could not list scenarios', reply.error);
}

export async function loadHistory(): Promise<void> {
  const reply = await send<'getHistory'>({ type: 'getHistory', limit: 200 });
  if (reply.ok) store.getState().setHistory(reply.result.entries);
}

const ACTIVITY_KINDS: Record<ActivityEntry['kind'], ActionKind> = {
  run_end: 'runEnded',
  kill: 'kill',
  lease_end: 'release',
  container_stop: 'clean',
};

/** Restores Activity from the ledger's recent records (after a reload the store starts empty). */
export async function loadActivity(): Promise<void> {
  const reply = await send<'getActivity'>({ type: 'getActivity' });
  if (!reply.ok) return;
  store.getState().restoreOutcomes(
    reply.result.entries.map((entry) => ({
      kind: ACTIVITY_KINDS[entry.kind],
      atMs: entry.atMs,
      ok: entry.ok,
      title: entry.title,
      message: entry.message,
      classification: entry.classification,
      reports: [],
      runId: entry.runId,
    })),
  );
}

/**
 * The system table is polled by the host only while the system view is visible; that view
 * always shows its Ports column, so the full port map is read exactly as long (and no longer).
 */
export async function requestWatchSystem(enabled: boolean): Promise<void> {
  store.getState().setSystemWatched(enabled);
  const reply = await send<'watchSystem'>({ type: 'watchSystem', enabled, ports: enabled });
  if (!enabled) {
    // Drop the table unless the view came back while this reply was in flight.
    if (!store.getState().systemWatched) store.getState().replaceSystem([]);
    return;
  }
  // A systemDiff may already have filled the table; the reply only seeds an empty one.
  const { systemWatched, system } = store.getState();
  if (reply.ok && systemWatched && system.size === 0 && reply.result.processes.length > 0)
    store.getState().replaceSystem(reply.result.processes);
}

export async function requestPollInterval(intervalMs: number): Promise<void> {
  const reply = await send<'setPollInterval'>({ type: 'setPollInterval', intervalMs });
  if (!reply.ok) pushFailure('settings', 'Could not change the refresh interval', reply.error);
}
