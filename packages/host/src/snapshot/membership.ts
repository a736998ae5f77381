/**
 * Which processes the UI shows under a run, and why: the engine's membership tracker (admission
 * only through a still-identical member, so a recycled pid never drags a stranger's children into
 * the tree; members stay members after their parent exits and they are reparented), plus what
 * only a screen needs: escapes from the root's group or session, and the evidence in words.
 */
import {
  admitDescendants,
  createMemberTracker,
  describeEvidence,
  indexChildren,
  ownsEntry,
  type ProcessEntry,
  type ProcessIdentity,
  type ProcessTable,
  pruneGroups,
  refreshMembers,
  releaseMembers,
  seedRoot,
} from '@treewarden/engine';

export interface Membership {
  readonly root: ProcessIdentity | null;
  /** Group and session of the root when first seen: members outside them "escaped". */
  readonly rootGroup: { readonly pgid: number; readonly sid: number } | null;
  /**
   * Re-reads membership from a fresh table (a full one, or the owned trees only). `children` is
   * `indexChildren(entries)`, passed in when several memberships update from the same table.
   */
  update(entries: ReadonlyMap<number, ProcessEntry>, children?: ReadonlyMap<number, readonly number[]>): void;
  /** Latest entries of every member still present (zombies included: shown, counted as stopped). */
  entries(): readonly ProcessEntry[];
  /** Pids to refresh next time (the roots of `readTrees`). */
  pids(): number[];
  isMember(identity: ProcessIdentity): boolean;
  isEscaped(entry: ProcessEntry): boolean;
  /**
   * Drops identities the run kept on purpose (`keepDescendants`): from the next update on, they
   * and whatever they start are no longer the run's (shown nowhere under it, never leaked).
   */
  release(identities: readonly ProcessIdentity[]): void;
  /** Into what it escaped: its own session, or only its own group; null while it has not. */
  escapeOf(entry: ProcessEntry): 'session' | 'group' | null;
  /** Why this member belongs to the run, in words a person can check against the table. */
  evidenceOf(entry: ProcessEntry): string[];
}

/** `rootOf` is read at every update: a leased run's identity arrives after its record exists. */
export function createMembership(rootOf: () => ProcessIdentity | null): Membership {
  const tracker = createMemberTracker(null);
  let latest = new Map<number, ProcessEntry>();
  let rootGroup: { pgid: number; sid: number } | null = null;

  return {
    get root() {
      return rootOf();
    },
    get rootGroup() {
      return rootGroup;
    },
    update(entries, children = indexChildren(entries)) {
      const table: ProcessTable = { entries, readAtMs: 0 };
      // A member whose pid is gone or recycled is simply dead: the screen has nothing to refuse.
      const { recycled, vanished } = refreshMembers(tracker, table);
      for (const member of vanished) tracker.members.delete(member.pid);
      for (const [member] of recycled) tracker.members.delete(member.pid);
      const root = rootOf();
      if (root !== null) {
        const entry = entries.get(root.pid);
        seedRoot(tracker, root, entry);
        if (entry !== undefined && ownsEntry(tracker, entry)) rootGroup ??= { pgid: entry.pgid, sid: entry.sid };
      }
      admitDescendants(tracker, table, children);
      pruneGroups(tracker, table);
      latest = new Map([...tracker.members.keys()].map((pid) => [pid, entries.get(pid) as ProcessEntry]));
    },
    entries: () => [...latest.values()],
    pids: () => [...latest.keys()],
    isMember: (identity) => latest.get(identity.pid)?.startTime === identity.startTime,
    release(identities) {
      releaseMembers(tracker, identities);
      latest = new Map([...latest].filter(([pid]) => tracker.members.has(pid)));
    },
    isEscaped(entry) {
      if (rootGroup === null) return false;
      return entry.pgid !== rootGroup.pgid || entry.sid !== rootGroup.sid;
    },
    escapeOf(entry) {
      if (rootGroup === null) return null;
      if (entry.sid !== rootGroup.sid) return 'session';
      return entry.pgid !== rootGroup.pgid ? 'group' : null;
    },
    evidenceOf(entry) {
      if (!ownsEntry(tracker, entry)) return [];
      const member = tracker.members.get(entry.pid);
      return member === undefined ? [] : [...describeEvidence(member.evidence, { entry })];
    },
  };
}
