/**
 * `treewarden orphans`: live processes of runs that are over, grouped per run, each with the
 * reasons it was judged leaked (cookie, cwd inside the run dir, recorded identity, ancestry).
 * Also trees nobody registered: processes carrying a run cookie the state dir has never heard of
 * whose parent is pid 1 or a known subreaper (a guardian, a `systemd --user`), with their trees.
 */
import { isIdentityAlive, type LeaseFileProblem, readLeaseRegistry } from '../lease/registry.js';
import { readLedger } from '../ledger/read.js';
import { readRunCookies } from '../membership/cookie.js';
import { type CookieReader, findRunMembers, type MemberMatch, type RunAnchor } from '../membership/run-members.js';
import { readCgroupPids } from '../run/cgroup.js';
import { ancestorPids } from '../signal/guards.js';
import { type StatePaths, verifyStateDir } from '../state/state-dir.js';
import { readProcTable } from '../table/linux-proc.js';
import { isZombie, type ProcessEntry, type ProcessTable } from '../table/types.js';
import { type RecordedCgroup, recordedCgroups, removeEmptyCgroups } from './cgroup-leaks.js';
import { findOtherUserLeftovers, type OtherUserLeftover } from './other-user-leftovers.js';
import { buildRunIndex, type RunIndex } from './run-index.js';

export interface OrphanGroup {
  /** The run the processes belong to; null for a lease-cookie match with no run. */
  readonly runId: string | null;
  readonly leaseId: string | null;
  /** `over`: a run or lease on record that is over; `unregistered`: a cookie nobody recorded. */
  readonly kind: 'over' | 'unregistered';
  /** Why the run counts as over. */
  readonly why: string;
  readonly members: readonly MemberMatch[];
  /** The run's own cgroup v2, when it had one: `--clean` ends what is left in it with cgroup.kill. */
  readonly cgroup?: string;
}

/** A run whose supervisor is gone and whose end nobody recorded (see settle-ended.ts). */
export interface UnendedRun {
  readonly runId: string;
  readonly leaseId: string | null;
  /** Why nothing supervises it any more. */
  readonly why: string;
}

export interface OrphanScan {
  readonly groups: readonly OrphanGroup[];
  /** Runs that are over with a start but no end on record: ended once nothing of them is left. */
  readonly unended: readonly UnendedRun[];
  readonly scannedAtMs: number;
  /** Torn ledger lines met while reading (reported, never fatal). */
  readonly tornLedgerLines: number;
  /** Ledger lines that parsed but failed their schema: skipped, never believed. */
  readonly invalidLedgerLines: number;
  /** Lease files that were skipped, and why (the other leases were still read). */
  readonly leaseProblems: readonly LeaseFileProblem[];
  /** Leaked processes that run as another user now: listed, never cleaned (root's scans only). */
  readonly otherUsers: readonly OtherUserLeftover[];
}

export interface FindOrphansOptions {
  readonly paths: StatePaths;
  readonly table?: ProcessTable;
  readonly readCookies?: CookieReader;
  readonly now?: number;
}

/** Names of processes that act as subreapers for user sessions. */
const SUBREAPER_COMMANDS: ReadonlySet<string> = new Set(['systemd']);

export function findOrphans(options: FindOrphansOptions): OrphanScan {
  const readCookies = options.readCookies ?? readRunCookies;
  // An untrusted state dir is refused (StateDirError) before one record of it is believed.
  verifyStateDir(options.paths.root);
  const ledger = readLedger(options.paths.ledgerFile);
  const registry = readLeaseRegistry(options.paths);
  const index = buildRunIndex(options.paths, ledger.records, registry.leases, isIdentityAlive, options.now);
  const machine = options.table ?? readProcTable();
  const table = ownProcesses(machine);
  const exclude = new Set([process.pid, ...ancestorPids(), ...index.guardians]);
  const over = [...index.runs.values()].filter((run) => run.over !== null);
  const cgroups = recordedCgroups(ledger.records, new Set(over.map((run) => run.runId)));
  removeEmptyCgroups(cgroups);
  const matches = findRunMembers(table, {
    anchors: over.map(
      (run): RunAnchor => ({ runId: run.runId, leaseId: run.leaseId, runDir: run.runDir, root: run.root }),
    ),
    leaseIds: new Set(index.deadLeases.keys()),
    deadSessions: withoutReusedLeaders(table, index.deadSessions),
    excludePids: exclude,
    kept: index.kept,
    readCookies,
    cgroups,
    readCgroupPids,
  });
  const unregistered = findUnregistered(table, index, readCookies, exclude, new Set(matches.map((m) => m.entry.pid)));
  return {
    groups: [...groupOver(matches, index, cgroups), ...unregistered],
    unended: over
      .filter((run) => run.startRecorded && !run.endRecorded)
      .map((run) => ({ runId: run.runId, leaseId: run.leaseId, why: run.over as string })),
    scannedAtMs: table.readAtMs,
    tornLedgerLines: ledger.torn.length,
    invalidLedgerLines: ledger.invalid.length,
    leaseProblems: registry.problems,
    otherUsers: findOtherUserLeftovers(machine, index, readCookies),
  };
}

/** Only our own user's processes can be ours to end; others' would be EPERM anyway. */
function ownProcesses(table: ProcessTable): ProcessTable {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return table;
  // forEach: no [pid, entry] pair per process on a scan of the whole machine (every 5 s in serve);
  // and no copy at all when every process is this user's (root in a container, a CI box).
  let others = 0;
  table.entries.forEach((entry) => {
    if (entry.uid !== uid) others += 1;
  });
  if (others === 0) return table;
  const entries = new Map<number, ProcessEntry>();
  table.entries.forEach((entry, pid) => {
    if (entry.uid === uid) entries.set(pid, entry);
  });
  return { entries, readAtMs: table.readAtMs };
}

/** A dead holder's pid now leading a new live session was reused: that session is someone else's. */
function withoutReusedLeaders(table: ProcessTable, sessions: RunIndex['deadSessions']): RunIndex['deadSessions'] {
  return new Map(
    [...sessions].filter(([sid, session]) => {
      const leader = table.entries.get(sid);
      return leader === undefined || isZombie(leader) || leader.startTime === session.holder.startTime;
    }),
  );
}

function groupOver(
  matches: readonly MemberMatch[],
  index: RunIndex,
  cgroups: readonly RecordedCgroup[],
): OrphanGroup[] {
  const cgroupOf = new Map(cgroups.map((cgroup) => [cgroup.runId, cgroup.path]));
  const groups = new Map<string, MemberMatch[]>();
  for (const match of matches) {
    const key = match.runId ?? `lease:${match.leaseId ?? '?'}`;
    groups.set(key, [...(groups.get(key) ?? []), match]);
  }
  return [...groups.values()].map((members) => {
    const first = members[0] as MemberMatch;
    const run = first.runId !== null ? index.runs.get(first.runId) : undefined;
    const leaseId = run?.leaseId ?? first.leaseId;
    const why = run?.over ?? (leaseId !== null ? index.deadLeases.get(leaseId) : undefined) ?? 'its lease is over';
    const cgroup = first.runId === null ? undefined : cgroupOf.get(first.runId);
    return { runId: first.runId, leaseId, kind: 'over', why, members, ...(cgroup === undefined ? {} : { cgroup }) };
  });
}

function isAdopter(table: ProcessTable, pid: number, index: RunIndex): boolean {
  if (pid === 1 || index.guardians.has(pid)) return true;
  const parent = table.entries.get(pid);
  return parent !== undefined && SUBREAPER_COMMANDS.has(parent.command);
}

/** Roots of unknown runs that were orphaned (reparented), plus their descendants. */
function findUnregistered(
  table: ProcessTable,
  index: RunIndex,
  readCookies: CookieReader,
  exclude: ReadonlySet<number>,
  claimed: ReadonlySet<number>,
): OrphanGroup[] {
  const anchors = new Map<string, RunAnchor>();
  for (const entry of table.entries.values()) {
    if (!isUnclaimedLive(entry, exclude, claimed) || !isAdopter(table, entry.ppid, index)) continue;
    const cookies = readCookies(entry.pid);
    const runId = cookies?.runId;
    if (runId === undefined || runId === '' || index.runs.has(runId)) continue;
    if (cookies?.leaseId !== undefined && index.liveLeases.has(cookies.leaseId)) continue;
    anchors.set(runId, { runId, leaseId: cookies?.leaseId ?? null });
  }
  if (anchors.size === 0) return [];
  const matches = findRunMembers(table, {
    anchors: [...anchors.values()],
    excludePids: exclude,
    kept: index.kept,
    readCookies,
  });
  return [...anchors.values()].map((anchor) => ({
    runId: anchor.runId,
    leaseId: anchor.leaseId ?? null,
    kind: 'unregistered' as const,
    why: 'run id recorded nowhere, and its processes were reparented to pid 1 or a subreaper',
    members: matches.filter((match) => match.runId === anchor.runId),
  }));
}

function isUnclaimedLive(entry: ProcessEntry, exclude: ReadonlySet<number>, claimed: ReadonlySet<number>): boolean {
  return entry.pid > 1 && !isZombie(entry) && !exclude.has(entry.pid) && !claimed.has(entry.pid);
}
