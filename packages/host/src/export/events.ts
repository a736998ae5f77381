/**
 * Events from consecutive snapshots (leaks found and gone, alerts raised and cleared) and from
 * the host's killOutcome events: what the OTLP side sends as log records and the counters count.
 */
import type { KillReport, Snapshot } from '@treewarden/protocol';
import { bump, type ExportCounters } from './series.js';
import { sessionIdResolver } from './session-ids.js';

export type ExportEventName = 'leak-found' | 'leak-cleaned' | 'alert-found' | 'alert-cleared' | 'kill';

export interface ExportEvent {
  readonly name: ExportEventName;
  /** The session the event belongs to (agent leaks and alerts); null for runs' leaks and kills. */
  readonly sessionId: string | null;
  readonly attributes: Readonly<Record<string, string | number>>;
}

interface Seen {
  readonly leaks: Map<string, ExportEvent>;
  readonly alerts: Map<string, ExportEvent>;
}

export interface EventDiffer {
  /** Events since the previous snapshot; cleanups are counted into `counters`. */
  next(snapshot: Snapshot): ExportEvent[];
}

function leaksOf(snapshot: Snapshot): Map<string, ExportEvent> {
  const leaks = new Map<string, ExportEvent>();
  const idOf = sessionIdResolver(snapshot);
  for (const orphan of snapshot.orphans) {
    const { pid, startTime } = orphan.process;
    leaks.set(`${pid}:${startTime}`, {
      name: 'leak-found',
      sessionId: orphan.sessionId === undefined ? null : idOf(orphan.sessionId),
      attributes: {
        'treewarden.leak.kind': orphan.kind === 'agent' ? 'agent' : 'run',
        'treewarden.agent': orphan.agent ?? '',
        'process.pid': pid,
        'process.creation.time': startTime,
      },
    });
  }
  return leaks;
}

function alertsOf(snapshot: Snapshot): Map<string, ExportEvent> {
  const alerts = new Map<string, ExportEvent>();
  const idOf = sessionIdResolver(snapshot);
  for (const session of snapshot.sessions ?? [])
    for (const alert of session.alerts ?? [])
      alerts.set(alert.id, {
        name: 'alert-found',
        sessionId: idOf(session.id),
        attributes: {
          'treewarden.alert.kind': alert.kind,
          'treewarden.agent': session.agent,
          'treewarden.alert.why': alert.why,
        },
      });
  return alerts;
}

export function createEventDiffer(counters: ExportCounters): EventDiffer {
  let seen: Seen = { leaks: new Map(), alerts: new Map() };
  return {
    next(snapshot) {
      const now: Seen = { leaks: leaksOf(snapshot), alerts: alertsOf(snapshot) };
      const events: ExportEvent[] = [];
      for (const [key, event] of now.leaks) if (!seen.leaks.has(key)) events.push(event);
      for (const [key, event] of seen.leaks)
        if (!now.leaks.has(key)) {
          events.push({ ...event, name: 'leak-cleaned' });
          bump(counters.cleanups, String(event.attributes['treewarden.leak.kind']));
        }
      for (const [key, event] of now.alerts) if (!seen.alerts.has(key)) events.push(event);
      for (const [key, event] of seen.alerts)
        if (!now.alerts.has(key)) events.push({ ...event, name: 'alert-cleared' });
      seen = now;
      return events;
    },
  };
}

export function killEvent(report: KillReport, counters: ExportCounters): ExportEvent {
  bump(counters.kills, report.result);
  return {
    name: 'kill',
    sessionId: null,
    attributes: {
      'treewarden.kill.outcome': report.result,
      'process.pid': report.target.pid,
      'process.creation.time': report.target.startTime,
    },
  };
}
