/**
 * Owns one process tree the way the server-restart supervisor does: every member remembered by
 * identity, re-read before every signal, the whole signal refused when identity became uncertain.
 * `kill()` (kill/owner-kill.ts) drives graceful SIGTERM, freeze, SIGKILL, verify and retry on top.
 */

import { killOwnedTree } from '../kill/owner-kill.js';
import type {
  KillOutcome,
  KillTreeOptions,
  SignalName,
  SignalOps,
  TreeOwner,
  TreeOwnerOptions,
} from '../kill/types.js';
import { ownProcessGroup } from '../signal/guards.js';
import { createSignalOps } from '../signal/signal-ops.js';
import { createTableReader } from '../table/reader.js';
import type { ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';
import { IdentityUncertainError, NoTableError, recycledPidError } from './errors.js';
import {
  admitCookieCarriers,
  admitDescendants,
  createMembership,
  type Membership,
  pruneGroups,
  refreshMembers,
} from './membership.js';
import { sendPlan } from './send-plan.js';
import { type GracefulRoots, gracefulRoots, planSignal, type SignalRequest } from './signal-plan.js';

export interface CreateTreeOwnerOptions extends TreeOwnerOptions {
  /** The caller's own process group, never signalled. Default: read from /proc (Linux). */
  readonly callerGroup?: number | null;
}

export type ObserveScope = 'all' | 'trees';

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
  /** Why signalling is refused before any read (the only anchor was recycled), or null. */
  uncertainty(): string | null;
  /** Set once an observation found the root's pid held by another process (start time differs). */
  rootRecycled(): string | null;
  /** Fresh read → revalidate → signal deepest first. Throws IdentityUncertainError / EPERM errors. */
  signal(signal: SignalName, request?: SignalRequest): Promise<SignalReport>;
}

export function createTreeOwner(root: ProcessIdentity, options: CreateTreeOwnerOptions = {}): RevalidatingTreeOwner {
  const reader = options.reader ?? createTableReader();
  const signals = options.signals ?? createSignalOps();
  const knownCallerGroup = options.callerGroup === undefined ? ownProcessGroup() : options.callerGroup;
  // Off Linux our own group is read from the same table (our own entry), at every signal.
  const callerGroupIn = (table: ProcessTable | null) =>
    knownCallerGroup ?? table?.entries.get(process.pid)?.pgid ?? null;
  let lastTable: ProcessTable | null = null;
  const membership: Membership = createMembership(root);
  let anchorError: IdentityUncertainError | null = null;
  let rootRecycledError: IdentityUncertainError | null = null;

  function admitNew(table: ProcessTable, partial = false): ProcessIdentity[] {
    // Cookie carriers hide outside the tree, so only a whole-machine read can find them.
    const fromCookie = options.runId && !partial ? admitCookieCarriers(membership, table, options.runId) : [];
    const fromAncestry = admitDescendants(membership, table);
    pruneGroups(membership, table);
    return [...fromCookie, ...fromAncestry];
  }

  /** `partial`: a tree-only read (owned pids and their descendants), not the whole machine. */
  function observeTable(table: ProcessTable, partial = false): ProcessIdentity[] {
    if (!partial) lastTable = table;
    const { recycled, vanished } = refreshMembers(membership, table);
    for (const member of vanished) membership.members.delete(member.pid);
    for (const [member, now] of recycled) {
      membership.members.delete(member.pid);
      // A recycled member is simply dead. Only a recycled root that leaves nothing else owned
      // makes ownership unprovable: then every later signal is refused.
      if (member.via !== 'root') continue;
      rootRecycledError ??= recycledPidError(member, now);
      anchorError ??= rootRecycledError;
    }
    const admitted = admitNew(table, partial);
    if (anchorError !== null && [...membership.members.values()].some((m) => !m.zombie)) anchorError = null;
    return admitted;
  }

  async function readTable(): Promise<ProcessTable | null> {
    return reader.readAll();
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
      const table = scope === 'all' ? await readTable() : await reader.readTrees([...membership.members.keys()]);
      if (table !== null) observeTable(table, scope === 'trees');
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
    uncertainty: () => anchorError?.message ?? null,
    rootRecycled: () => rootRecycledError?.message ?? null,
    async signal(signal, request = {}) {
      const table = request.freshTable ?? (await readTable());
      if (table === null) throw new NoTableError();
      // The exact race: an owned pid recycled since the last observation refuses everything.
      const { recycled, vanished } = refreshMembers(membership, table);
      const first = recycled[0];
      if (first !== undefined) throw recycledPidError(first[0], first[1]);
      for (const member of vanished) membership.members.delete(member.pid);
      admitNew(table);
      if (anchorError !== null) throw anchorError;
      lastTable = table;
      const plan = planSignal(membership, table, root.pid, callerGroupIn(table), request);
      const sent = await sendPlan(plan, signal, signals, reader);
      return { ...sent, table };
    },
    kill(killOptions?: KillTreeOptions): Promise<KillOutcome> {
      return killOwnedTree(owner, killOptions);
    },
  };
  return owner;
}

function toIdentity(member: ProcessIdentity): ProcessIdentity {
  return { pid: member.pid, startTime: member.startTime };
}

export { IdentityUncertainError };
