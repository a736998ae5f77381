/** Turns engine process entries into the protocol's ProcessNode, with CPU % from time deltas. */
import { identityKey, type ProcessEntry } from '@treewarden/engine';
import type { ListeningSocket, ProcessNode } from '@treewarden/protocol';

/** argv joined for display is cut here: a 100 kB command line is not worth shipping 5,000 times. */
export const MAX_COMMAND_LINE_CHARS = 512;

/** Where the host's last port read says each identity listens (see poll/port-watch.ts). */
export type ListeningLookup = (key: string) => readonly ListeningSocket[] | undefined;

export function toProcessNode(
  entry: ProcessEntry,
  cpuPercent: number | undefined,
  escaped: boolean,
  listeningOf?: ListeningLookup,
): ProcessNode {
  const listening = listeningOf?.(identityKey(entry));
  const joined = entry.args.length > 0 ? entry.args.join(' ') : `[${entry.command}]`;
  return {
    pid: entry.pid,
    startTime: entry.startTime,
    ppid: entry.ppid,
    pgid: entry.pgid,
    sid: entry.sid,
    state: entry.state.slice(0, 2),
    uid: entry.uid,
    command: entry.command,
    commandLine: joined.length > MAX_COMMAND_LINE_CHARS ? `${joined.slice(0, MAX_COMMAND_LINE_CHARS - 1)}…` : joined,
    cwd: entry.cwd,
    ...(cpuPercent === undefined ? {} : { cpuPercent }),
    rssBytes: Math.max(0, entry.rssBytes),
    startedAtMs: Math.max(0, entry.startedAtMs),
    escaped,
    ...(listening === undefined || listening.length === 0 ? {} : { listening: [...listening] }),
  };
}

interface CpuSample {
  readonly cpuTimeMs: number;
  readonly atMs: number;
}

/**
 * Remembers each identity's CPU time at the previous read; percent = CPU time used since then
 * over wall time since then (100 = one full core). First sight of a process has no earlier CPU
 * time to diff against: it gets no percent at all (unknown), never a made-up 0.
 */
export interface CpuTracker {
  /** Percent per identity key for this table (absent: first seen now), and forgets identities that are gone. */
  sample(entries: ReadonlyMap<number, ProcessEntry>, readAtMs: number): Map<string, number>;
}

export function createCpuTracker(): CpuTracker {
  let previous = new Map<string, CpuSample>();
  return {
    sample(entries, readAtMs) {
      const next = new Map<string, CpuSample>();
      const percents = new Map<string, number>();
      for (const entry of entries.values()) {
        const key = identityKey(entry);
        const before = previous.get(key);
        next.set(key, { cpuTimeMs: entry.cpuTimeMs, atMs: readAtMs });
        if (before === undefined) continue;
        const elapsed = readAtMs - before.atMs;
        const used = entry.cpuTimeMs - before.cpuTimeMs;
        percents.set(key, elapsed > 0 && used > 0 ? Math.round((used / elapsed) * 1000) / 10 : 0);
      }
      previous = next;
      return percents;
    },
  };
}
