/**
 * Owns one process tree by polling the table: every member remembered by
 * identity, re-read before every signal, the whole signal refused when identity became uncertain.
 * The kill (kill/owner-kill.ts `killOwnedTree(owner, options)`) drives graceful SIGTERM, freeze,
 * SIGKILL, verify and retry on top of the revalidated observe and signal this owner exposes.
 */

import { existsSync } from 'node:fs';
import type { OtherUserCarrier } from '../membership/cookie.js';
import {
  admitCarriers,
  admitCookieCarriers,
  admitDescendants,
  createMembership,
  type Membership,
  pruneGroups,
  refreshMembers,
  vouchSessions,
} from '../membership/tracker.js';
import { ownProcessGroup } from '../signal/guards.js';
import { createSignalOps } from '../signal/signal-ops.js';
import { readLiveStartTime } from '../signal/start-time.js';
import type { SignalName, SignalOps } from '../signal/types.js';
import { createLinuxReader } from '../table/linux-reader.js';
import { createTableReader } from '../table/reader.js';
import type { ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';
import { IdentityUncertainError, NoTableError, recycledPidError } from './errors.js';
import { findEscapedCarriers } from './escapes.js';
import { sendPlan } from './send-plan.js';
import { settleUnreadCookies } from './settle-cookies.js';
import { type GracefulRoots, gracefulRoots, planSignal, type SignalRequest } from './signal-plan.js';
import { treeViewVouches } from './tree-view.js';
import type { TreeOwner, TreeOwnerOptions } from './types.js';

export interface CreateTreeOwnerOptions extends TreeOwnerOptions {
  /** The caller's own process group, never signalled. Default: read from /proc (Linux). */
  readonly callerGroup?: number | null;
}

/**
 * `all`: the whole machine (also finds cookie carriers anywhere); `trees`: the owned pids and
 * their descendants; `escapes`: the trees, plus (with a run cookie) the children of the places
 * an escape is reparented to (escapes.ts), whole-machine only where the reader cannot do that;
 * `adopters`: the escapes part alone, for a tree just read that can no longer fork (frozen and
 * killed); `members`: only the owned pids themselves (watching such a tree die).
 */
export type ObserveScope = 'all' | 'trees' | 'escapes' | 'adopters' | 'members';

/** Parents of top members remembered as places escapes may be reparented under; bounded. */
const MAX_ADOPTER_HINTS = 64;

export interface SignalReport {
  /** Groups the signal was sent to. */
  readonly groups: readonly number[];
  /** Processes signalled one by one (outside any fully owned group). */
  readonly pids: readonly number[];
  readonly table: ProcessTable;
}

/** TreeOwner plus the revalidated primitives the kill, the run supervisor and the paperclip adapter use. */
export interface RevalidatingTreeOwner extends TreeOwner {
  readonly runId: string | undefined;
  readonly reader: TableReader;
  readonly signals: SignalOps;
  /**
   * `all` (default): a whole-machine read, which also finds cookie carriers; `trees`: only the
   * owned pids and their descendants, whose cost follows the tree (used while polling a kill).
   */
  observe(scope?: ObserveScope): Promise<void>;
  /** `observe(scope)` that also returns what it read (null: no table). */
  observeRead(scope?: ObserveScope): Promise<ProcessTable | null>;
  /** Observe against a table the caller just read; throws nothing, records uncertainty instead. */
  observeTable(table: ProcessTable, partial?: boolean): ProcessIdentity[];
  /** Fresh read (null: no table). */
  readTable(): Promise<ProcessTable | null>;
  /** Every owned identity ever admitted and not yet seen to vanish (including zombies). */
  ownedIdentities(): readonly ProcessIdentity[];
  /** Owned zombies: counted as stopped. */
  zombies(): readonly ProcessIdentity[];
  gracefulRoots(): GracefulRoots;
  /** Owned groups that still have a live owned member. */
  liveGroups(): readonly number[];
  /**
   * Re-reads, for up to `boundMs`, the processes whose environ the last sweep could not read (an
   * execve in progress) and admits the carriers among them; returns those admitted.
   */
  settleCookies(boundMs: number): Promise<ProcessIdentity[]>;
  /**
   * Live processes carrying the run's cookie that run as another user (a setuid() after the fork),
   * as the last whole read found them: never members, never signalled, reported by the run.
   */
  otherUserCarriers(): readonly OtherUserCarrier[];
  /** Why signalling is refused before any read (the only anchor was recycled), or null. */
  uncertainty(): string | null;
  /** Set once an observation found the root's pid held by another process (start time differs). */
  rootRecycled(): string | null;
  /** Fresh read → revalidate → signal deepest first. Throws IdentityUncertainError / EPERM errors. */
  signal(signal: SignalName, request?: SignalRequest): Promise<SignalReport>;
}

/**
 * The owner's default reader: on Linux /proc without cwd (ownership never looks at it), its walks
 * pinning a pidfd to each member for the kill (table/held-stats.ts).
 */
function createOwnerReader(): TableReader {
  return process.platform === 'linux' && existsSync('/proc/self/stat')
    ? createLinuxReader({ cwd: false, pinPidfds: true })
    : createTableReader();
}

export function createTreeOwner(root: ProcessIdentity, options: CreateTreeOwnerOptions = {}): RevalidatingTreeOwner {
  const reader = options.reader ?? createOwnerReader();
  const signals = options.signals ?? createSignalOps();
  const knownCallerGroup = options.callerGroup === undefined ? ownProcessGroup() : options.callerGroup;
  // Off Linux our own group is read from the same table (our own entry), at every signal.
  const callerGroupIn = (table: ProcessTable | null) =>
    knownCallerGroup ?? table?.entries.get(process.pid)?.pgid ?? null;
  let lastTable: ProcessTable | null = null;
  const membership: Membership = createMembership(root);
  let anchorError: IdentityUncertainError | null = null;
  const adopterHints = new Set<number>();
  /** `lastAllocatedPid()` taken before the last cookie sweep's read; null before the first one. */
  let sweepPidMark: number | null = null;
  /** The mark taken as the current `escapes` sweep started. */
  let sweepStartMark: number | null = null;
  let rootRecycledError: IdentityUncertainError | null = null;
  // Every carrier descends from the root, so none started before it.
  const search = {
    notBefore: root.startTime,
    ...(options.readCookies === undefined ? {} : { readCookies: options.readCookies }),
  };

  function admitNew(table: ProcessTable, partial = false): ProcessIdentity[] {
    // Cookie carriers hide outside the tree, so only a whole-machine read can find them.
    const fromCookie = options.runId && !partial ? admitCookieCarriers(membership, table, options.runId, search) : [];
    const fromAncestry = admitDescendants(membership, table);
    pruneGroups(membership, table);
    return [...fromCookie, ...fromAncestry];
  }

  /**
   * After a cookie sweep: any later escape gets a pid allocated after this mark (taken before the
   * sweep's read, so nothing created during it is left out).
   */
  function markSweep(mark: number | null = sweepStartMark): void {
    sweepPidMark = mark;
  }

  /** `partial`: not the whole machine (a tree or pid read); `pidMark`: taken before a whole read. */
  function observeTable(table: ProcessTable, partial = false, pidMark: number | null = null): ProcessIdentity[] {
    if (!partial) lastTable = table;
    const { recycled, vanished } = refreshMembers(membership, table);
    // A whole-machine read with the run cookie finds carriers wherever they hid: a sweep.
    if (!partial && options.runId) markSweep(pidMark);
    for (const member of vanished) membership.members.delete(member.pid);
    for (const [member, now] of recycled) {
      membership.members.delete(member.pid);
      // A recycled member is simply dead. Only a recycled root that leaves nothing else owned
      // makes ownership unprovable: then every later signal is refused.
      if (member.evidence.kind !== 'root') continue;
      rootRecycledError ??= recycledPidError(member, now);
      anchorError ??= rootRecycledError;
    }
    const admitted = admitNew(table, partial);
    vouchSessions(membership, table);
    noteAdopters();
    if (anchorError !== null && [...membership.members.values()].some((m) => !m.zombie)) anchorError = null;
    return admitted;
  }

  /** The parents of top members (not owned themselves): their ancestry is where escapes land. */
  function noteAdopters(): void {
    for (const member of membership.members.values()) {
      if (member.zombie || member.ppid <= 1 || membership.members.has(member.ppid)) continue;
      if (adopterHints.size < MAX_ADOPTER_HINTS) adopterHints.add(member.ppid);
    }
  }

  /**
   * The cookie carriers among the children of where escapes are reparented, after a tree read
   * unless `readTreesFirst` is false (the caller just read the trees and they cannot fork).
   */
  async function observeEscapes(readTreesFirst: boolean): Promise<ProcessTable | null> {
    sweepStartMark = reader.lastAllocatedPid?.() ?? null;
    let latest: ProcessTable | null = null;
    if (readTreesFirst) {
      latest = await reader.readTrees([...membership.members.keys()]);
      if (latest === null) return null;
      observeTable(latest, true);
    }
    if (options.runId === undefined || options.runId === '') return latest;
    // No pid handed out since the last sweep: an escape is a process created since, so none can
    // have landed where orphans go (the read below would look only at pids after this mark).
    if (sweepPidMark !== null && sweepStartMark === sweepPidMark)
      return latest ?? { entries: new Map(), readAtMs: Date.now() };
    const adopted =
      reader.readAdopters === undefined
        ? null
        : await reader.readAdopters([...adopterHints], {
            notBefore: root.startTime,
            known: new Set(membership.members.keys()),
            ...(sweepPidMark === null ? {} : { allocatedAfter: sweepPidMark }),
          });
    // A reader that cannot look where orphans land: the whole machine is the only other place.
    if (adopted === null) return owner.observeRead('all');
    const carriers = findEscapedCarriers(membership, adopted, options.runId, search);
    markSweep();
    if (carriers.length === 0) return latest ?? adopted;
    admitCarriers(membership, adopted, carriers, options.runId);
    const withCarriers = await reader.readTrees([...membership.members.keys()]);
    if (withCarriers !== null) observeTable(withCarriers, true);
    return withCarriers;
  }

  async function readTable(): Promise<ProcessTable | null> {
    return reader.readAll();
  }

  /** Drops vanished members and throws on a recycled one, against a fresh (whole or tree) read. */
  function revalidate(table: ProcessTable): void {
    const { recycled, vanished } = refreshMembers(membership, table);
    const first = recycled[0];
    if (first !== undefined) throw recycledPidError(first[0], first[1]);
    for (const member of vanished) membership.members.delete(member.pid);
  }

  /**
   * A signal revalidated on a fresh read of the owned trees (tree-view.ts). Null, with nothing
   * sent, when that view cannot vouch for every wanted group: the caller then revalidates on a
   * whole-machine read.
   */
  async function signalOnTreeView(signal: SignalName, request: SignalRequest): Promise<SignalReport | null> {
    const view = request.freshTreeView ?? (await reader.readTrees([...membership.members.keys()]));
    if (view === null) throw new NoTableError();
    revalidate(view);
    admitDescendants(membership, view);
    pruneGroups(membership, view);
    vouchSessions(membership, view);
    if (anchorError !== null) throw anchorError;
    const callerGroup = callerGroupIn(lastTable);
    const graceful = request.graceful === true ? gracefulRoots(membership, root.pid, callerGroup).groups : undefined;
    const wanted = (request.groups ?? graceful ?? [...membership.groups]).filter((pgid) => pgid !== callerGroup);
    if (!treeViewVouches(membership, view, wanted)) return null;
    const plan = planSignal(membership, view, root.pid, callerGroup, request);
    return { ...(await sendPlan(plan, signal, signals, reader)), table: view };
  }

  const owner: RevalidatingTreeOwner = {
    root,
    runId: options.runId,
    reader,
    signals,
    async observe(scope: ObserveScope = 'all') {
      await owner.observeRead(scope);
    },
    async observeRead(scope: ObserveScope = 'all') {
      if (scope === 'escapes' || scope === 'adopters') return observeEscapes(scope === 'escapes');
      const owned = [...membership.members.keys()];
      const pidMark = scope === 'all' ? (reader.lastAllocatedPid?.() ?? null) : null;
      const table =
        scope === 'all'
          ? await readTable()
          : scope === 'members' && reader.readPids !== undefined
            ? await reader.readPids(owned)
            : await reader.readTrees(owned);
      if (table !== null) observeTable(table, scope !== 'all', pidMark);
      return table;
    },
    observeTable,
    readTable,
    members: () => [...membership.members.values()].filter((m) => !m.zombie).map(toIdentity),
    zombies: () => [...membership.members.values()].filter((m) => m.zombie).map(toIdentity),
    ownedIdentities: () => [...membership.members.values()].map(toIdentity),
    gracefulRoots: () => gracefulRoots(membership, root.pid, callerGroupIn(lastTable)),
    liveGroups: () =>
      [...membership.groups].filter((pgid) =>
        [...membership.members.values()].some((m) => !m.zombie && m.pgid === pgid),
      ),
    async settleCookies(boundMs) {
      if (options.runId === undefined || options.runId === '') return [];
      return settleUnreadCookies(membership, options.runId, reader, boundMs, options.readCookies, (table) =>
        observeTable(table, true),
      );
    },
    otherUserCarriers: () =>
      [...membership.otherUserCarriers.values()].filter(
        (carrier) => readLiveStartTime(carrier.pid) === carrier.startTime,
      ),
    uncertainty: () => anchorError?.message ?? null,
    rootRecycled: () => rootRecycledError?.message ?? null,
    async signal(signal, request = {}) {
      const viewed = request.treeView === true ? await signalOnTreeView(signal, request) : null;
      if (viewed !== null) return viewed;
      const table = request.freshTable ?? (await readTable());
      if (table === null) throw new NoTableError();
      // The exact race: an owned pid recycled since the last observation refuses everything.
      revalidate(table);
      admitNew(table);
      vouchSessions(membership, table);
      if (anchorError !== null) throw anchorError;
      lastTable = table;
      const plan = planSignal(membership, table, root.pid, callerGroupIn(table), request);
      const sent = await sendPlan(plan, signal, signals, reader);
      return { ...sent, table };
    },
  };
  return owner;
}

function toIdentity(member: ProcessIdentity): ProcessIdentity {
  return { pid: member.pid, startTime: member.startTime };
}

export { IdentityUncertainError };
