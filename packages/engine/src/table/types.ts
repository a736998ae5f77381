/**
 * The process-table model shared by every platform reader.
 *
 * Identity is `(pid, startTime)`: a pid alone is recycled by the kernel, so every decision to
 * signal is made against an identity read moments before, never against a bare pid.
 */

/** One process as the platform reported it. `startTime` is opaque and only compared for equality. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Linux: `/proc/PID/stat` field 22 (clock ticks since boot) as a decimal string; macOS: `ps -o lstart`; Windows: creation time. */
  readonly startTime: string;
}

/** Kernel process states, as single letters (`R S D Z T t X I W P`); `?` when unknown. */
export type ProcessState = string;

export interface ProcessEntry extends ProcessIdentity {
  readonly ppid: number;
  /** Windows has no process groups: there every process is its own (pgid = pid). */
  readonly pgid: number;
  /** Session id; 0 where the platform does not report one (macOS), the Windows session id on Windows. */
  readonly sid: number;
  readonly state: ProcessState;
  /** Effective uid; -1 where the platform does not report one (Windows). */
  readonly uid: number;
  /** Short name (Linux `comm`). */
  readonly command: string;
  /** Full argv; empty for kernel threads and zombies. */
  readonly args: readonly string[];
  /** Working directory, or null where it cannot be read (other users, zombies). */
  readonly cwd: string | null;
  /** User + system CPU time consumed so far. */
  readonly cpuTimeMs: number;
  /** CPU time of children it already waited for (Linux cutime + cstime); absent elsewhere. */
  readonly childrenCpuTimeMs?: number;
  readonly rssBytes: number;
  /** Wall-clock start in epoch milliseconds (derived from startTime; for display and ages). */
  readonly startedAtMs: number;
}

export interface ProcessTable {
  readonly entries: ReadonlyMap<number, ProcessEntry>;
  /** Epoch ms when the read finished. */
  readonly readAtMs: number;
  /** Where the reader knows it: how this table differs from the one it read before (see TableChanges). */
  readonly changes?: TableChanges;
}

/**
 * A table as the change of an earlier one (`since`, from the same reader): the pids `changed`
 * have other entry objects, those `removed` are gone, and every other pid's entry is the very
 * object `since` holds, so a consumer that already went through `since` can skip it.
 */
export interface TableChanges {
  readonly since: ReadonlyMap<number, ProcessEntry>;
  readonly changed: ReadonlyMap<number, ProcessEntry>;
  readonly removed: readonly number[];
}

/** A platform backend. `readAll` yields null ("no table") rather than a partial table. */
export interface TableReader {
  readonly platform: NodeJS.Platform;
  readAll(): Promise<ProcessTable | null>;
  /**
   * Read only the given pids and their descendants (the owned-tree refresh). Readers that cannot
   * do this cheaply fall back to a full read filtered down.
   */
  readTrees(rootPids: readonly number[]): Promise<ProcessTable | null>;
  /**
   * Optional: just the given pids, no descendants (the cheapest re-read of known identities, e.g.
   * to watch a frozen tree die). Without it, callers use `readTrees`.
   */
  readPids?(pids: readonly number[]): Promise<ProcessTable | null>;
  /**
   * Optional (Linux): the ancestors of the given pids up to pid 1, and the direct children of each
   * ancestor. A process whose parent dies is reparented to the nearest subreaper ancestor or to
   * pid 1, so this is where a tree's escapes land, read without reading the whole machine.
   */
  readAdopters?(pids: readonly number[], filter?: AdopterFilter): Promise<ProcessTable | null>;
  /** Optional (Linux): the pid most recently allocated (`ns_last_pid`), to mark a moment in pid order. */
  lastAllocatedPid?(): number | null;
  /**
   * Optional (Linux): the pidfd a tree walk pinned to each of these identities (held-stats.ts),
   * by pid, when every one has one (and, with `uid`, ran as that uid at the last walk that reached
   * it); else null. Valid until the reader's next walk: use them at once.
   */
  pinnedPidfds?(identities: readonly ProcessIdentity[], uid?: number): ReadonlyMap<number, number> | null;
  /** Optional: gives back the files it holds between reads (descriptors); it stays usable. */
  close?(): void;
}

/** Children of adopters left out unread by `readAdopters`. */
export interface AdopterFilter {
  /** Started earlier than this (this platform's start time format): nothing older descends from a tree's root. */
  readonly notBefore?: string;
  /** Pids the caller already tracks (its own members, often unreaped zombies there). */
  readonly known?: ReadonlySet<number>;
  /**
   * A `lastAllocatedPid()` mark: only pids allocated after it (in the kernel's cyclic pid order)
   * are read. Leaves out, unread, the pile of old children (unreaped zombies) an adopter may hold.
   */
  readonly allocatedAfter?: number;
}

/** The one spelling of an identity as a map key, shared with the host and the renderer. */
export { identityKey } from '@treewarden/protocol/identity-key';

export function sameIdentity(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.pid === b.pid && a.startTime === b.startTime;
}

export function isZombie(entry: Pick<ProcessEntry, 'state'>): boolean {
  return entry.state === 'Z' || entry.state === 'X';
}
