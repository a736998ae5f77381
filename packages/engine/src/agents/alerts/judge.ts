/**
 * The pile-up judgement over live agent sessions: for each, its members now (by identity) and their
 * usage over time, the four rules, and every alert with its exact processes, its evidence and a
 * stable id (kind, session and the alerted identities: the same processes keep the same id).
 * `judgeSessionAlerts` is pure over its inputs; `createAlertTracker` keeps the samples and when each
 * alert was first raised, and says which were found and cleared since the last tick.
 */
import type { SessionAlert } from '@treewarden/protocol';
import { ancestorPids } from '../../signal/guards.js';
import { identityKey, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { LiveSession } from '../sessions/recognise.js';
import type { StoredSession } from '../sessions/store-schema.js';
import { sessionBudget } from './budget.js';
import type { AlertConfig } from './config.js';
import type { AlertDraft } from './draft.js';
import { duplicateServers } from './duplicate-servers.js';
import { createCachedFdReader } from './fd-cache.js';
import { type FdReader, fdHogs } from './fd-hog.js';
import { runawayJobs } from './runaway-job.js';
import { createSampleHistory, NO_SAMPLES, SAMPLE_SPACING_MS, type SampleReader } from './samples.js';
import { type JudgedSession, judgedSession, rootAncestors } from './session-members.js';
import { staleSubagents } from './stale-subagents.js';

export interface AlertInput {
  readonly table: ProcessTable;
  readonly live: readonly LiveSession[];
  /** Remembered sessions (their reparented members still count), as the observation has them. */
  readonly remembered: readonly StoredSession[];
  readonly config: AlertConfig;
  /** Usage over time; without it (one-shot commands) only the kernel's own counters are judged. */
  readonly history?: SampleReader;
  /** Pids never alerted (the observer's tree); the caller's own pid and ancestors are always added. */
  readonly exclude?: ReadonlySet<number>;
  readonly uid?: number;
  readonly now: number;
  /** Members' fds for `fd-hog`; absent: that rule is not judged (a fake table's pids are not its processes). */
  readonly fds?: FdReader;
  /** The agent root's ancestors (never alerted); default: read from the table, else /proc. */
  readonly ancestorsOf?: (root: ProcessEntry, table: ProcessTable) => ReadonlySet<number>;
}

export interface JudgedAlert {
  readonly id: string;
  readonly kind: AlertDraft['kind'];
  readonly sessionId: string;
  readonly agent: string;
  readonly processes: readonly ProcessEntry[];
  readonly why: string;
}

/** FNV-1a (32 bits) of one identity: cheap, no allocation beyond the key. */
function identityHash(entry: ProcessEntry, seed: number): number {
  const key = `${entry.pid}:${entry.startTime}`;
  let hash = seed;
  for (let index = 0; index < key.length; index += 1) hash = Math.imul(hash ^ key.charCodeAt(index), 16_777_619);
  return hash >>> 0;
}

const FNV_OFFSET = 2_166_136_261;
const SECOND_SEED = 0x9e3779b9;

/**
 * Order-independent digest of the alerted identities (every tick, for every alert: a budget alert
 * names up to a thousand members, so no sort and no cryptographic hash): the count, the sum of one
 * hash and the xor of another. Ids only need to differ between one session's alerts of one kind.
 */
export function alertId(kind: string, sessionId: string, processes: readonly ProcessEntry[]): string {
  let sum = 0;
  let xor = 0;
  for (const entry of processes) {
    sum = (sum + identityHash(entry, FNV_OFFSET)) >>> 0;
    xor = (xor ^ identityHash(entry, SECOND_SEED)) >>> 0;
  }
  const hex = (value: number) => value.toString(16).padStart(8, '0');
  return `${kind}:${sessionId}:${processes.length}-${hex(sum)}${hex(xor)}`;
}

/** Each live session with what it holds now; another live session's root and members are never this one's. */
export function judgedSessions(input: AlertInput): JudgedSession[] {
  const exclude = new Set([process.pid, ...ancestorPids(), ...(input.exclude ?? [])]);
  const owners = new Map<number, string>();
  for (const session of input.live) {
    owners.set(session.root.pid, session.id);
    for (const member of session.members) owners.set(member.entry.pid, session.id);
  }
  const remembered = new Map(input.remembered.map((session) => [session.id, session]));
  const ancestorsOf = input.ancestorsOf ?? rootAncestors;
  return input.live.map((session) => {
    const ancestors = ancestorsOf(session.root, input.table);
    const isProtected = (pid: number) => {
      const owner = owners.get(pid);
      return exclude.has(pid) || ancestors.has(pid) || (owner !== undefined && owner !== session.id);
    };
    return judgedSession(session, remembered.get(session.id), input.table, isProtected, input.uid);
  });
}

function draftsOf(session: JudgedSession, input: AlertInput): AlertDraft[] {
  const history = input.history ?? NO_SAMPLES;
  const { config } = input;
  return [
    ...(config.duplicateServers.enabled ? duplicateServers(session) : []),
    ...staleSubagents(session, config.staleSubagents, history),
    ...runawayJobs(session, config.runawayJob, history, input.now),
    ...sessionBudget(session, config),
    ...(input.fds !== undefined ? fdHogs(session, config.fdHog, input.fds) : []),
  ];
}

export function judgeAlertsOf(sessions: readonly JudgedSession[], input: AlertInput): JudgedAlert[] {
  return sessions.flatMap((session) =>
    draftsOf(session, input)
      .filter((draft) => draft.processes.length > 0)
      .map((draft) => ({
        id: alertId(draft.kind, session.id, draft.processes),
        kind: draft.kind,
        sessionId: session.id,
        agent: session.agent,
        processes: draft.processes,
        why: draft.why,
      })),
  );
}

/** Every alert over the live sessions of one observation. */
export function judgeSessionAlerts(input: AlertInput): JudgedAlert[] {
  return judgeAlertsOf(judgedSessions(input), input);
}

export function toSessionAlert(alert: JudgedAlert, sinceMs: number): SessionAlert {
  return {
    id: alert.id,
    kind: alert.kind,
    pids: alert.processes.map((entry) => entry.pid),
    processes: alert.processes.map(({ pid, startTime }) => ({ pid, startTime })),
    why: alert.why.slice(0, 2000),
    since: new Date(sinceMs).toISOString(),
  };
}

export interface TrackedAlert extends JudgedAlert {
  /** When this id was first raised (epoch ms). */
  readonly sinceMs: number;
}

export interface AlertTick {
  readonly alerts: readonly TrackedAlert[];
  readonly found: readonly TrackedAlert[];
  readonly cleared: readonly TrackedAlert[];
}

export interface AlertTracker {
  tick(
    observation: {
      readonly table: ProcessTable;
      readonly live: readonly LiveSession[];
      readonly sessions: readonly StoredSession[];
    },
    now?: number,
  ): AlertTick;
  /** The config judged with (reload it with `setConfig`). */
  readonly config: AlertConfig;
  setConfig(config: AlertConfig): void;
}

export interface AlertTrackerOptions {
  readonly config: AlertConfig;
  readonly exclude?: ReadonlySet<number>;
  readonly uid?: number;
  readonly sampleSpacingMs?: number;
  /** Members' fds for `fd-hog`; default: read from /proc, each identity at most every 10 s. */
  readonly fds?: FdReader & { sweep?: () => void };
}

export function createAlertTracker(options: AlertTrackerOptions): AlertTracker {
  const history = createSampleHistory(options.sampleSpacingMs ?? SAMPLE_SPACING_MS);
  const fds = options.fds ?? createCachedFdReader();
  let config = options.config;
  let current = new Map<string, TrackedAlert>();
  const ancestors = new Map<string, ReadonlySet<number>>();
  // A root's ancestors only change when one dies: read once per root identity, not every tick.
  const ancestorsOf = (root: ProcessEntry, table: ProcessTable) => {
    const key = identityKey(root);
    const known = ancestors.get(key) ?? rootAncestors(root, table);
    ancestors.set(key, known);
    return known;
  };
  return {
    get config() {
      return config;
    },
    setConfig(next) {
      config = next;
    },
    tick(observation, now = Date.now()) {
      const input: AlertInput = {
        table: observation.table,
        live: observation.live,
        remembered: observation.sessions,
        config,
        history,
        now,
        ancestorsOf,
        fds,
        ...(options.exclude !== undefined ? { exclude: options.exclude } : {}),
        ...(options.uid !== undefined ? { uid: options.uid } : {}),
      };
      const sessions = judgedSessions(input);
      history.record(
        sessions.flatMap((session) => session.members.map((member) => member.entry)),
        observation.table.readAtMs,
      );
      const liveRoots = new Set(observation.live.map((session) => identityKey(session.root)));
      for (const key of ancestors.keys()) if (!liveRoots.has(key)) ancestors.delete(key);
      const next = new Map<string, TrackedAlert>();
      for (const alert of judgeAlertsOf(sessions, input))
        next.set(alert.id, { ...alert, sinceMs: current.get(alert.id)?.sinceMs ?? now });
      fds.sweep?.();
      const found = [...next.values()].filter((alert) => !current.has(alert.id));
      const cleared = [...current.values()].filter((alert) => !next.has(alert.id));
      current = next;
      return { alerts: [...next.values()], found, cleared };
    },
  };
}

/** Alerts by session id, as the protocol carries them on each session row. */
export function alertsBySession(alerts: readonly TrackedAlert[]): Map<string, SessionAlert[]> {
  const bySession = new Map<string, SessionAlert[]>();
  for (const alert of alerts)
    bySession.set(alert.sessionId, [...(bySession.get(alert.sessionId) ?? []), toSessionAlert(alert, alert.sinceMs)]);
  return bySession;
}
