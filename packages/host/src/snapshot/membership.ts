/**
 * Which processes belong to a run, by identity. A process is admitted only through a member that
 * is still identical (same pid and start time), so a recycled pid never drags a stranger's
 * children into the tree; members stay members after their parent exits and they are reparented.
 */
import { identityKey, indexChildren, type ProcessEntry, type ProcessIdentity } from '@treewarden/engine';

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

/** How a member was admitted: the run's root, or a child of a member that was still identical. */
type Admission =
  | { readonly kind: 'root' }
  | { readonly kind: 'child'; readonly parentPid: number; readonly parentName: string };

function describeAdmission(entry: ProcessEntry, admission: Admission | undefined): string[] {
  if (admission === undefined) return [];
  if (admission.kind === 'root')
    return [`the run's root: the process this run started (pid ${entry.pid}, start ${entry.startTime})`];
  const admitted = `child of pid ${admission.parentPid} (${admission.parentName}), a member with the same identity when first seen`;
  if (entry.ppid === admission.parentPid) return [admitted];
  return [admitted, `its parent exited; reparented to pid ${entry.ppid}, still a member by identity`];
}

/** `rootOf` is read at every update: a leased run's identity arrives after its record exists. */
export function createMembership(rootOf: () => ProcessIdentity | null): Membership {
  let members = new Map<string, ProcessEntry>();
  const released = new Set<string>();
  // Kept per identity for the member's lifetime: evidence must not change when a parent exits.
  let admissions = new Map<string, Admission>();
  let rootGroup: { pgid: number; sid: number } | null = null;

  return {
    get root() {
      return rootOf();
    },
    get rootGroup() {
      return rootGroup;
    },
    update(entries, children = indexChildren(entries)) {
      const excluded = releasedTrees(released, entries, children);
      const current = new Map<string, ProcessEntry>();
      for (const [key, old] of members) {
        const now = entries.get(old.pid);
        if (now !== undefined && now.startTime === old.startTime && !excluded.has(key)) current.set(key, now);
      }
      const root = rootOf();
      if (root !== null) {
        const now = entries.get(root.pid);
        if (now !== undefined && now.startTime === root.startTime) {
          current.set(identityKey(now), now);
          if (!admissions.has(identityKey(now))) admissions.set(identityKey(now), { kind: 'root' });
          rootGroup ??= { pgid: now.pgid, sid: now.sid };
        }
      }
      const queue = [...current.values()];
      while (queue.length > 0) {
        const parent = queue.pop() as ProcessEntry;
        for (const childPid of children.get(parent.pid) ?? []) {
          const child = entries.get(childPid);
          if (child === undefined) continue;
          const key = identityKey(child);
          if (current.has(key) || excluded.has(key)) continue;
          current.set(key, child);
          if (!admissions.has(key))
            admissions.set(key, { kind: 'child', parentPid: parent.pid, parentName: parent.command });
          queue.push(child);
        }
      }
      members = current;
      admissions = new Map([...admissions].filter(([key]) => current.has(key)));
    },
    entries: () => [...members.values()],
    pids: () => [...members.values()].map((entry) => entry.pid),
    isMember: (identity) => members.has(identityKey(identity)),
    release(identities) {
      for (const identity of identities) released.add(identityKey(identity));
      members = new Map([...members].filter(([key]) => !released.has(key)));
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
    evidenceOf: (entry) => describeAdmission(entry, admissions.get(identityKey(entry))),
  };
}

/** Released identities still present, and every live descendant of theirs, by identity key. */
function releasedTrees(
  released: ReadonlySet<string>,
  entries: ReadonlyMap<number, ProcessEntry>,
  children: ReadonlyMap<number, readonly number[]>,
): Set<string> {
  const excluded = new Set<string>();
  if (released.size === 0) return excluded;
  const queue = [...entries.values()].filter((entry) => released.has(identityKey(entry)));
  while (queue.length > 0) {
    const entry = queue.pop() as ProcessEntry;
    const key = identityKey(entry);
    if (excluded.has(key)) continue;
    excluded.add(key);
    for (const childPid of children.get(entry.pid) ?? []) {
      const child = entries.get(childPid);
      if (child !== undefined) queue.push(child);
    }
  }
  return excluded;
}
