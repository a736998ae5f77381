/**
 * Spreads the system view's history pass over the polls. A pass samples every process once per
 * SYSTEM_SAMPLE_MIN_MS; at 20,000 processes one pass on one poll cost several frames, and it is
 * what the update's p95 measured. The processes are dealt into SYSTEM_SAMPLE_GROUPS groups by pid,
 * and group g is due SYSTEM_SAMPLE_MIN_MS × g / SYSTEM_SAMPLE_GROUPS after its pass began: at the
 * host's 1 s poll that is one group per poll, and each process still gets one sample per pass.
 * Slower polls take every group whose time has come, so no process waits past its pass.
 * Each group holds its processes' current nodes and rings, so a pass looks nothing up by key.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { type SampleRing, SYSTEM_SAMPLE_MIN_MS } from '../model/history';

export const SYSTEM_SAMPLE_GROUPS = 5;

/** A process in its group: the node the table has now, and its ring once it was sampled. */
export interface Sampled {
  /** Its `pid:startTime` key (so a pass iterates entries, not [key, entry] pairs). */
  readonly key: string;
  node: ProcessNode;
  ring: SampleRing | undefined;
  /** Whether its last sample flagged it (so unflagged processes need no look-up in the flags). */
  flagged: boolean;
}

function groupOfPid(pid: number): number {
  return pid % SYSTEM_SAMPLE_GROUPS;
}

/** The sample group of a `pid:startTime` key (the diff's removals name only keys). */
export function groupOfKey(key: string): number {
  return groupOfPid(Number.parseInt(key, 10));
}

export class SystemSampler {
  private readonly groups: Map<string, Sampled>[] = Array.from({ length: SYSTEM_SAMPLE_GROUPS }, () => new Map());
  /** When the current pass began (its group 0 was sampled); null before the first. */
  private passAtMs: number | null = null;
  /** The next group to sample (0: the next pass begins with it). */
  private cursor = 0;

  /** Keeps the groups in step with the table: the same removals and upserts (`keys`: theirs, in order). */
  noteDiff(full: boolean, upserts: readonly ProcessNode[], keys: readonly string[], removed: readonly string[]): void {
    if (full) for (const group of this.groups) group.clear();
    for (const key of removed) this.groups[groupOfKey(key)]?.delete(key);
    for (let i = 0; i < upserts.length; i += 1) {
      const node = upserts[i] as ProcessNode;
      const key = keys[i] as string;
      const group = this.groups[groupOfPid(node.pid)] as Map<string, Sampled>;
      const entry = group.get(key);
      if (entry) entry.node = node;
      // flagged: true until its first sample says otherwise (a full table keeps the old flags until then).
      else group.set(key, { key, node, ring: undefined, flagged: true });
    }
  }

  /** The groups to sample at `atMs` (often one, none between passes), by number. */
  due(atMs: number): number[] {
    const due: number[] = [];
    for (let taken = 0; taken < SYSTEM_SAMPLE_GROUPS; taken += 1) {
      if (this.cursor === 0) {
        if (this.passAtMs !== null && atMs - this.passAtMs < SYSTEM_SAMPLE_MIN_MS) break;
        this.passAtMs = atMs;
      } else if (atMs < (this.passAtMs ?? atMs) + (SYSTEM_SAMPLE_MIN_MS * this.cursor) / SYSTEM_SAMPLE_GROUPS) break;
      due.push(this.cursor);
      this.cursor = (this.cursor + 1) % SYSTEM_SAMPLE_GROUPS;
    }
    return due;
  }

  /** After the flags were recomputed over every process (new thresholds): who is flagged now. */
  noteFlagged(flags: ReadonlyMap<string, unknown>): void {
    for (const group of this.groups) for (const [key, entry] of group) entry.flagged = flags.has(key);
  }

  members(group: number): ReadonlyMap<string, Sampled> {
    return this.groups[group] ?? new Map();
  }
}
