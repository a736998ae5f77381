/**
 * The exporter's series, computed from one host snapshot (the host's own poller and agent
 * observer: no second observer). Names are the ones README "Many machines" documents. No pid,
 * argv or session label unless `sessionLabels` is on (cardinality; argv can hold secrets).
 */
import type { Snapshot } from '@treewarden/protocol';
import { sessionIdResolver } from './session-ids.js';

export type Labels = Readonly<Record<string, string>>;
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}
export interface Series {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
  readonly samples: readonly Sample[];
}

/** Counters the exporter keeps across snapshots (kills seen, leaks cleaned, OTLP batches dropped). */
export interface ExportCounters {
  readonly kills: Map<string, number>;
  readonly cleanups: Map<string, number>;
  /** CPU seconds of sessions' live processes, integrated from each snapshot's cpu% (by label set, JSON). */
  readonly sessionCpu: Map<string, number>;
  droppedBatches: number;
}

export function createCounters(): ExportCounters {
  return { kills: new Map(), cleanups: new Map(), sessionCpu: new Map(), droppedBatches: 0 };
}

export function bump(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** Sums values by a label key (`a=1,b=2`), keeping the labels of each group once. */
class Grouped {
  private readonly groups = new Map<string, { labels: Labels; value: number }>();
  add(labels: Labels, value: number): void {
    const key = JSON.stringify(labels);
    const group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, { labels, value });
    else group.value += value;
  }
  samples(): Sample[] {
    return [...this.groups.values()];
  }
}

function withSession(labels: Labels, sessionId: string, on: boolean): Labels {
  return on ? { ...labels, session_id: sessionId } : labels;
}

export interface SeriesOptions {
  readonly sessionLabels: boolean;
  readonly scrapeSeconds: number;
}

/** Adds one poll interval's CPU time (cpu% × interval) per session; called once per snapshot. */
export function integrateCpu(snapshot: Snapshot, counters: ExportCounters, sessionLabels: boolean): void {
  const idOf = sessionIdResolver(snapshot);
  for (const session of snapshot.sessions ?? []) {
    if (session.cpuPercent === undefined) continue;
    const key = JSON.stringify(withSession({ agent: session.agent }, idOf(session.id), sessionLabels));
    bump(counters.sessionCpu, key, (session.cpuPercent / 100) * (snapshot.pollIntervalMs / 1000));
  }
}

function runStates(snapshot: Snapshot): Sample[] {
  const runs = new Grouped();
  for (const lease of snapshot.leases) for (const run of lease.runs) runs.add({ state: run.phase }, 1);
  return runs.samples();
}

/** Every series, in a fixed order; a series with no sample still has its HELP/TYPE (Prometheus shows it absent). */
export function seriesOf(
  snapshot: Snapshot | null,
  counters: ExportCounters,
  options: SeriesOptions,
): readonly Series[] {
  const leaked = new Grouped();
  const sessions = new Grouped();
  const alerts = new Grouped();
  const processes = new Grouped();
  const memory = new Grouped();
  const cpu = new Grouped();
  let leases = 0;
  if (snapshot !== null) {
    // Zero samples for run leaks keep the series present, so "back to 0" is a value, not a gap.
    leaked.add({ kind: 'run', agent: '' }, 0);
    const idOf = sessionIdResolver(snapshot);
    for (const orphan of snapshot.orphans) {
      const kind = orphan.kind === 'agent' ? 'agent' : 'run';
      const labels = { kind, agent: orphan.agent ?? '' };
      leaked.add(
        orphan.sessionId === undefined ? labels : withSession(labels, idOf(orphan.sessionId), options.sessionLabels),
        1,
      );
    }
    for (const session of snapshot.sessions ?? []) {
      const sessionId = idOf(session.id);
      const own = withSession({ agent: session.agent }, sessionId, options.sessionLabels);
      sessions.add({ agent: session.agent, state: 'live' }, 0);
      sessions.add({ agent: session.agent, state: 'ended' }, 0);
      sessions.add(withSession({ agent: session.agent, state: session.state }, sessionId, options.sessionLabels), 1);
      for (const alert of session.alerts ?? []) alerts.add({ ...own, kind: alert.kind }, 1);
      processes.add(own, session.processes.length);
      memory.add(own, session.rssBytes);
    }
    leases = snapshot.leases.filter((lease) => lease.holderState !== 'released').length;
  }
  for (const [key, seconds] of counters.sessionCpu) cpu.add(JSON.parse(key) as Labels, seconds);
  const map = (counts: Map<string, number>, key: string): Sample[] =>
    [...counts].map(([value, count]) => ({ labels: { [key]: value }, value: count }));
  return [
    {
      name: 'treewarden_leaked_processes',
      help: 'Leaked processes now (runs and agent sessions)',
      type: 'gauge',
      samples: leaked.samples(),
    },
    {
      name: 'treewarden_agent_sessions',
      help: 'Agent sessions seen, by state',
      type: 'gauge',
      samples: sessions.samples(),
    },
    {
      name: 'treewarden_session_alerts',
      help: 'Pile-up alerts in live agent sessions',
      type: 'gauge',
      samples: alerts.samples(),
    },
    {
      name: 'treewarden_session_processes',
      help: 'Live processes of agent sessions',
      type: 'gauge',
      samples: processes.samples(),
    },
    {
      name: 'treewarden_session_memory_bytes',
      help: 'Resident memory of agent sessions',
      type: 'gauge',
      samples: memory.samples(),
    },
    {
      name: 'treewarden_session_cpu_seconds_total',
      help: "CPU time of agent sessions' live processes",
      type: 'counter',
      samples: cpu.samples(),
    },
    {
      name: 'treewarden_leases_open',
      help: 'Leases not released',
      type: 'gauge',
      samples: snapshot === null ? [] : [{ labels: {}, value: leases }],
    },
    {
      name: 'treewarden_runs',
      help: 'Runs by phase',
      type: 'gauge',
      samples: snapshot === null ? [] : runStates(snapshot),
    },
    {
      name: 'treewarden_kills_total',
      help: 'Kills seen by this exporter, by outcome',
      type: 'counter',
      samples: map(counters.kills, 'outcome'),
    },
    {
      name: 'treewarden_cleanups_total',
      help: 'Leaked processes gone since seen, by kind',
      type: 'counter',
      samples: map(counters.cleanups, 'kind'),
    },
    {
      name: 'treewarden_otlp_dropped_batches_total',
      help: 'OTLP batches dropped (collector down or failing)',
      type: 'counter',
      samples: [{ labels: {}, value: counters.droppedBatches }],
    },
    {
      name: 'treewarden_scrape_duration_seconds',
      help: 'Time to build the previous /metrics answer',
      type: 'gauge',
      samples: [{ labels: {}, value: options.scrapeSeconds }],
    },
  ];
}
