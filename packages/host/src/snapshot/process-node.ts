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

/** CPU time used between two reads over the wall time between them, to 0.1 (100 = one full core). */
export function cpuPercentBetween(cpuBeforeMs: number, atBeforeMs: number, cpuNowMs: number, atNowMs: number): number {
  const elapsed = atNowMs - atBeforeMs;
  const used = cpuNowMs - cpuBeforeMs;
  return elapsed > 0 && used > 0 ? Math.round((used / elapsed) * 1000) / 10 : 0;
}

interface CpuSample {
  cpuTimeMs: number;
  atMs: number;
  /** The sample() call that last saw this identity: older ones are gone and forgotten. */
  seenIn: number;
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
  // Updated in place, not rebuilt: at a 1 s poll of ~1,000 processes a fresh map and a sample
  // object per process each second were young garbage for nothing (most processes slept).
  const previous = new Map<string, CpuSample>();
  let call = 0;
  return {
    sample(entries, readAtMs) {
      call += 1;
      const percents = new Map<string, number>();
      entries.forEach((entry) => {
        const key = identityKey(entry);
        const before = previous.get(key);
        if (before === undefined) {
          previous.set(key, { cpuTimeMs: entry.cpuTimeMs, atMs: readAtMs, seenIn: call });
          return;
        }
        percents.set(key, cpuPercentBetween(before.cpuTimeMs, before.atMs, entry.cpuTimeMs, readAtMs));
        before.cpuTimeMs = entry.cpuTimeMs;
        before.atMs = readAtMs;
        before.seenIn = call;
      });
      previous.forEach((sample, key) => {
        if (sample.seenIn !== call) previous.delete(key);
      });
      return percents;
    },
  };
}
