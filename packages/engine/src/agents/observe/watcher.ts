/**
 * The headless observer behind `treewarden watch` and the host: a full table read at start, then
 * focused reads that follow new orphans, the remembered sessions, and the processes forked since
 * the last tick (new-pids.ts), judged as seeds of new sessions, so a new session is found by the
 * next tick. A full read stays as a safety net every FULL_SCAN_INTERVAL_MS, for what a pid
 * difference cannot show: a process that exec()s into an agent under its old pid (or forked while
 * still a shell and exec'd after the tick judged it), and a pid wrap (the watch then answers null
 * and this tick reads everything). Each tick returns the events it saw.
 */

import { type EventStream, followContainerEvents } from '../../containers/engine-events.js';
import { findEngineSocket } from '../../containers/engine-socket.js';
import type { IdentityCache } from '../../table/linux-entry.js';
import { createLinuxReader } from '../../table/linux-reader.js';
import { newPidWatchAvailable } from '../../table/new-pids.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';
import type { AgentLeak } from '../leaks/find-leaks.js';
import { readSessionContainers, type SessionContainer } from '../leaks/session-containers.js';
import type { MarkerReader } from '../read/environ.js';
import { readSessions, type StoreProblem } from '../sessions/session-store.js';
import type { HookCleanup, StoredSession } from '../sessions/store-schema.js';
import { ContainerAttributor } from './container-attribution.js';
import { withStoredMembersOfEnding } from './ending-members.js';
import { createFocusedReader, hasMarkers } from './focused-table.js';
import { isNewRootSeed, readFullTable } from './full-table.js';
import { type AgentObservation, currentUid, findSubreapers, type ObserveContext, observeTable } from './observe.js';

/**
 * The safety-net full read: new sessions are found each tick from the new pids; this finds only an
 * exec() into an agent under an old pid (and bounds a whole pid cycle between two ticks). At ~1,000
 * processes a full read costs ~33 ms of CPU: every 10 s that was ~0.33 % of a core, two thirds of
 * the 0.5 % idle budget; every 60 s it is ~0.06 %. An exec'd agent is found within a minute.
 */
export const FULL_SCAN_INTERVAL_MS = 60_000;
/** Without a new-pid watch (no readable pid cursor, e.g. another namespace's /proc) full reads find new sessions, this often. */
export const FULL_SCAN_FALLBACK_INTERVAL_MS = 10_000;
/**
 * The session store is re-read this often (another observer, a hook, may have written), the engine
 * socket looked for, and members' listening sockets read (the dev-server role).
 */
export const STORE_READ_INTERVAL_MS = 10_000;
/** Default time between ticks: a leak shows within about this long after its session died. */
export const WATCH_TICK_MS = 1000;

export type AgentEvent =
  | { readonly type: 'session-started'; readonly session: StoredSession }
  | { readonly type: 'session-ended'; readonly session: StoredSession }
  | { readonly type: 'leak-found'; readonly leak: AgentLeak; readonly newPids: readonly number[] }
  /** A SessionEnd reaper (another process) ended the session's leftovers; seen when the store is re-read. */
  | { readonly type: 'session-cleaned'; readonly session: StoredSession; readonly cleanup: HookCleanup };

export interface AgentWatcher {
  tick(now?: number): { readonly observation: AgentObservation; readonly events: readonly AgentEvent[] };
  /** The live sessions' roots and agent processes as the last tick saw them (what `waitForTickOrRootExit` looks at). */
  liveRoots(): readonly ProcessIdentity[];
  /** Closes the container event stream, if one is open (the process table needs no closing). */
  close(): void;
  /** Each session's containers as last listed (refreshed after container events and full scans; empty without an engine). */
  containers(): ReadonlyMap<string, readonly SessionContainer[]>;
}

export interface WatcherOptions extends ObserveContext {
  /** Default FULL_SCAN_INTERVAL_MS, or FULL_SCAN_FALLBACK_INTERVAL_MS without a new-pid watch. */
  readonly fullScanIntervalMs?: number;
  /** Whether new pids are judged each tick (default: when the pid cursor is readable). */
  readonly newPidSeeds?: boolean;
  /**
   * Container attribution: the engine socket to follow (default: found on each full scan; null:
   * never). With no socket nothing is opened, so machines without containers pay only a stat.
   */
  readonly engineSocket?: string | null;
  readonly onContainerAttributed?: (id: string, sessionId: string, atMs: number) => void;
  /** Each time the engine's event stream opens (tests start containers only after it). */
  readonly onEngineConnected?: () => void;
}

/** The event stream and its attributor, opened the first time an engine socket is seen. */
function containerFollower(options: WatcherOptions) {
  let attributor: ContainerAttributor | null = null;
  let stream: EventStream | null = null;
  let socket: string | null = null;
  let latest: ReadonlyMap<string, readonly SessionContainer[]> = new Map();
  let known: readonly StoredSession[] = [];
  // One listing at a time; a change meanwhile asks for one more after it (never a queue of them).
  let listing = false;
  let again = false;
  const refresh = (): void => {
    if (socket === null) return;
    if (listing) {
      again = true;
      return;
    }
    listing = true;
    readSessionContainers(options.stateRoot, known, socket)
      .then((found) => {
        latest = found;
      })
      .catch(() => undefined) // Engine gone meanwhile: the last listing stays until the next.
      .finally(() => {
        listing = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  return {
    containers: () => latest,
    /**
     * `look`: the only time a socket is looked for (a stat per STORE_READ_INTERVAL_MS when none
     * exists); `relist`: list the sessions' containers again (a full scan, a session set changed).
     */
    sessions(sessions: readonly StoredSession[], look: boolean, relist: boolean): void {
      if (attributor === null) {
        if (!look) return;
        const socketPath = options.engineSocket === undefined ? findEngineSocket() : options.engineSocket;
        if (socketPath === null) return;
        socket = socketPath;
        const created = new ContainerAttributor({
          stateRoot: options.stateRoot,
          socketPath,
          ...(options.onContainerAttributed !== undefined ? { onAttributed: options.onContainerAttributed } : {}),
        });
        attributor = created;
        // Events are judged in order; a failing judgement never stops the stream.
        let chain = Promise.resolve();
        stream = followContainerEvents(
          (event) => {
            chain = chain
              .then(() => created.onEvent(event))
              .catch(() => undefined)
              .then(refresh);
          },
          {
            findSocket: () => socketPath,
            ...(options.onEngineConnected !== undefined ? { onConnected: options.onEngineConnected } : {}),
          },
        );
      }
      known = sessions;
      attributor
        .setSessions(sessions)
        .catch(() => undefined)
        .then(() => {
          if (relist) refresh();
        });
    },
    close(): void {
      stream?.close();
      stream = null;
    },
  };
}

export function createAgentWatcher(options: WatcherOptions): AgentWatcher {
  const incremental = options.newPidSeeds ?? newPidWatchAvailable();
  const interval = options.fullScanIntervalMs ?? (incremental ? FULL_SCAN_INTERVAL_MS : FULL_SCAN_FALLBACK_INTERVAL_MS);
  const storeInterval = Math.min(interval, STORE_READ_INTERVAL_MS);
  const uid = options.uid ?? currentUid();
  const cache: IdentityCache = new Map();
  // Its own cwd-less reader: argv and uid stay cached across full scans, and cwd is read only for
  // the processes a session or leak shows (full-table.ts).
  const fullReader = createLinuxReader({ cwd: false });
  const scanContext = { rules: options.rules, readMarkers: options.readMarkers, uid };
  let reported = new Set<string>();
  // Reaper reports already emitted (or already there when this watcher started): session id → atMs.
  let cleanups: Map<string, number> | null = null;
  let remembered: StoredSession[] | null = null;
  let storeProblems: StoreProblem[] = [];
  const evidence = hasMarkers(options.readMarkers as MarkerReader);
  const focusedReader = createFocusedReader(
    evidence,
    cache,
    incremental ? (entry) => isNewRootSeed(entry, scanContext) : null,
    uid,
  );
  let lastFullAt = Number.NEGATIVE_INFINITY;
  let lastStoreAt = Number.NEGATIVE_INFINITY;
  let subreapers = new Set<number>();
  let liveRoots: readonly ProcessIdentity[] = [];
  const containers = containerFollower(options);
  // Live session ids as the last tick saw them.
  let followed: ReadonlySet<string> = new Set();
  // The session ids the containers were last listed for.
  let listedFor = '';
  return {
    liveRoots: () => liveRoots,
    close: () => containers.close(),
    containers: () => containers.containers(),
    tick(now = Date.now()) {
      // The look comes before any read, a full one too: the next tick's new pids start here.
      const newPids = incremental ? focusedReader.look() : [];
      // No trusted difference (first look, a pid wrap): only a full read is exact.
      const full = now - lastFullAt >= interval || newPids === null;
      const storeTick = full || now - lastStoreAt >= storeInterval;
      // The store is re-read every STORE_READ_INTERVAL_MS (other observers, e.g. the CLI or a
      // hook, may have written); between reads this watcher's own last view is current, and
      // re-parsing every file each tick is waste.
      if (storeTick || remembered === null) {
        const store = readSessions(options.stateRoot);
        remembered = store.sessions;
        storeProblems = store.problems;
        lastStoreAt = now;
      }
      let table = full
        ? readFullTable(fullReader, remembered, scanContext)
        : focusedReader.read(remembered, subreapers);
      // A focused read finds only the trees it was told of: a session ending now is read again with
      // the members another observer stored for it (a full read has every process already).
      const folded = full ? null : withStoredMembersOfEnding(options.stateRoot, remembered, table);
      if (folded !== null) {
        remembered = folded;
        focusedReader.repeatLook();
        table = focusedReader.read(remembered, subreapers);
      }
      if (full) {
        lastFullAt = now;
        // The next focused read starts from exact children again: whatever a derivation could have
        // missed (a whole pid cycle between two ticks) lasts at most one full-scan interval.
        focusedReader.reset();
        subreapers = findSubreapers(table, uid);
        // The focused reads' identities of processes gone since (argv kept per pid otherwise grows).
        for (const pid of cache.keys()) if (!table.entries.has(pid)) cache.delete(pid);
      } else {
        // A subreaper started since (`systemd --user` at a login) adopts orphans from now on.
        const fresh = focusedReader.lastNew;
        if (fresh.length > 0)
          for (const pid of findSubreapers({ entries: new Map(fresh.map((e) => [e.pid, e])), readAtMs: now }, uid))
            subreapers.add(pid);
      }
      const observation = observeTable({ ...options, now }, table, remembered, storeProblems, full, subreapers, {
        readPorts: storeTick,
      });
      remembered = [...observation.sessions];
      const sessionSet = remembered.map((session) => session.id).join(' ');
      containers.sessions(remembered, storeTick, full || sessionSet !== listedFor);
      listedFor = sessionSet;
      // The agent's own processes, not just the root: a launcher that dies first (Codex's npm shim,
      // Gemini's relaunch) leaves the agent working, and its end is what makes leftovers news.
      // And the root of every session not yet ended, recognised this tick or not: Codex's launcher,
      // read while it exits after its binary (its cmdline already empty, its stat still running),
      // is no agent to recognition, yet its exit is what ends the session.
      liveRoots = uniqueIdentities([
        ...observation.live.flatMap(({ root, members }) => [
          root,
          ...members.filter((member) => member.role === 'agent').map(({ entry }) => entry),
        ]),
        ...observation.sessions.filter((session) => session.endedAtMs === null).map((session) => session.root),
      ]);
      const events: AgentEvent[] = [
        ...newlyFollowed(observation, followed).map((session) => ({ type: 'session-started' as const, session })),
        ...observation.ended.map((session) => ({ type: 'session-ended' as const, session })),
      ];
      followed = new Set(observation.live.map((session) => session.id));
      events.push(...newCleanups(observation.sessions, cleanups));
      cleanups = new Map(observation.sessions.map((session) => [session.id, session.hook?.cleanup?.atMs ?? 0]));
      const current = new Set<string>();
      for (const leak of observation.leaks) {
        const fresh = leak.processes.filter((process) => !reported.has(identityKey(process.entry)));
        for (const process of leak.processes) current.add(identityKey(process.entry));
        if (fresh.length > 0)
          events.push({ type: 'leak-found', leak, newPids: fresh.map((process) => process.entry.pid) });
      }
      // An identity never comes back once gone, so only the current leaks need remembering.
      reported = current;
      return { observation, events };
    },
  };
}

/** Each identity once, as a bare pid and start time (the root watch holds one fd per identity). */
function uniqueIdentities(identities: readonly ProcessIdentity[]): ProcessIdentity[] {
  const byKey = new Map(identities.map(({ pid, startTime }) => [identityKey({ pid, startTime }), { pid, startTime }]));
  return [...byKey.values()];
}

/**
 * Sessions this watcher starts following: the ones new to the store, and any live session it did
 * not follow last tick. Another observer sharing the state dir (a `sessions` or `orphans` run) may
 * have remembered a session first, even before this watcher's first tick; the store then calls it
 * known, but this watcher has not told it yet.
 */
function newlyFollowed(observation: AgentObservation, followed: ReadonlySet<string>): StoredSession[] {
  const started = new Set(observation.started.map((session) => session.id));
  const live = new Set(observation.live.map((session) => session.id));
  return observation.sessions.filter(
    (session) => started.has(session.id) || (live.has(session.id) && !followed.has(session.id)),
  );
}

/** Reaper reports newer than the last tick's; none on the first tick (those are history, not news). */
function newCleanups(sessions: readonly StoredSession[], seen: ReadonlyMap<string, number> | null): AgentEvent[] {
  if (seen === null) return [];
  const events: AgentEvent[] = [];
  for (const session of sessions) {
    const cleanup = session.hook?.cleanup;
    if (cleanup !== undefined && cleanup.atMs > (seen.get(session.id) ?? 0))
      events.push({ type: 'session-cleaned', session, cleanup });
  }
  return events;
}
