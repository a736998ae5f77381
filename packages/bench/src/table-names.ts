/** The table bench's owned tree and the names of its contenders (shared by the bench and its report). */

/** The owned tree: 1 root shell + 9 branch shells + 90 pausers. */
export const OWNED_BRANCHES = 9;
export const OWNED_LEAVES = 10;
export const OWNED_SIZE = 1 + OWNED_BRANCHES + OWNED_BRANCHES * OWNED_LEAVES;

/** Contender names, as the report prints them. */
export const NAMES = {
  snapshot: 'ours: full snapshot',
  cold: 'ours: first snapshot (fresh reader, cold cache)',
  noCwd: 'ours: full snapshot without cwd (`cwd: false`)',
  tree: `ours: owned-tree refresh (${OWNED_SIZE} owned)`,
  host: 'host: system-view poll (worker read + rows + diff)',
  floor: 'bare stat loop (reused buffer; the floor)',
  readFile: 'bare stat loop (readFileSync)',
  syscalls: 'syscalls only: readdir + open/read/close stat',
  cwd: 'syscalls only: cwd readlink loop',
  cmdline: 'stat + cmdline loop (reused buffer)',
  owner: 'syscalls only: owner stat loop (stat of /proc/PID)',
  psList: 'ps-list',
  pidtree: 'pidtree (all pids)',
} as const;
