/**
 * What the fd and inotify counts cost (the System view's Fds column, `ps --fds`, the fd-hog
 * alert): `readFdUsage` for every process at ~1,000 processes, beside its floor, a bare readdir of
 * every `/proc/PID/fd`. The counts also readlink each fd (to tell sockets, pipes and inotify
 * instances apart), read an inotify fd's `fdinfo` for its watches, and the process's fd limit.
 * They are read only for the views and sessions that show them, never on every poll.
 */
import { readdirSync } from 'node:fs';
import { listPids, readFdUsage } from '@treewarden/engine';
import { createLoad } from './pause-load.js';
import { type Contender, formatMs, formatRatio, markdownTable, median, timeRounds } from './util.js';

const TARGET_PROCESSES = 1_000;
const ROUNDS = 15;

function bareReaddir(): number {
  let fds = 0;
  for (const pid of listPids()) {
    try {
      fds += readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      // Gone, or another user's.
    }
  }
  return fds;
}

function fdCounts(): number {
  let fds = 0;
  for (const pid of listPids()) fds += readFdUsage(pid)?.open ?? 0;
  return fds;
}

export async function runFdBench(): Promise<string> {
  if (process.platform !== 'linux') return '_fd bench skipped: it reads /proc and needs Linux._';
  const load = createLoad();
  try {
    const present = listPids().length;
    if (present < TARGET_PROCESSES) await load.startFlat(TARGET_PROCESSES - present);
    const processes = listPids().length;
    const contenders = new Map<string, Contender>([
      ['floor: readdir of every /proc/PID/fd', bareReaddir],
      ['readFdUsage of every process (fds, inotify watches, limit)', fdCounts],
    ]);
    const times = await timeRounds(contenders, ROUNDS);
    const [floor, ours] = [...times.values()].map((runs) => median(runs)) as [number, number];
    const fds = bareReaddir();
    const rows = [...times].map(([name, runs]) => [
      name,
      `${formatMs(median(runs))} ms`,
      formatRatio(median(runs) / floor),
    ]);
    return [
      `${processes} processes, ${fds} open fds; median of ${ROUNDS} rounds, interleaved. Per process: ${((ours * 1000) / processes).toFixed(0)} µs.`,
      markdownTable(['read', 'median', 'vs the floor'], rows),
    ].join('\n\n');
  } finally {
    await load.end();
  }
}
