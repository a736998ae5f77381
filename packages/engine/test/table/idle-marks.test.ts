/**
 * The polling reader's idle check, on real processes: a single-threaded process whose schedstat
 * did not change keeps its entry without a stat read, and nothing that check cannot see stays
 * hidden: a reparenting (its parent died; the child did not run) shows at the next read, a
 * multi-threaded process whose other thread runs shows its CPU every read, a kept process that
 * exits leaves (or turns zombie) at the next read, and a process started since the last read
 * shows in the next one though /proc is not listed (one fork, and more than the watch probes).
 * Rotation is off in these readers (`cwdRefreshPolls` no pid meets), so only the idle check and
 * the new-pid watch decide what is read.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createHeldStats } from '../../src/table/held-stats.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { readHeldSchedstat, readHeldStatFields, readStatFields } from '../../src/table/linux-stat.js';
import { pollUntil, SHELL_LINES_WAIT_MS, startShell, useProcessTracker } from '../helpers/index.js';

/** A refresh period no pid of this machine meets within a test (pid % it equals the read count). */
const NO_REFRESH_POLLS = 2 ** 30;
/** Reads before the idle check can keep an entry: held stat from the 2nd, schedstat mark from the 3rd. */
const WARM_READS = 3;

/** Reads until `pid` is kept by the idle check in two reads running (it sleeps by then). */
async function untilKept(reader: ReturnType<typeof createLinuxReader>, pid: number) {
  for (let read = 0; read < WARM_READS; read += 1) reader.snapshot();
  return pollUntil(
    () => {
      const before = reader.snapshot().entries.get(pid);
      const table = reader.snapshot();
      return before !== undefined && table.entries.get(pid) === before && reader.lastSnapshotReads().kept > 0
        ? before
        : null;
    },
    { deadlineMs: SHELL_LINES_WAIT_MS, description: `process ${pid} to be kept between two reads` },
  );
}

/** Until every pid runs sleep (read afresh, not through the reader under test). */
async function untilExeced(pids: readonly number[]): Promise<void> {
  await pollUntil(() => pids.every((pid) => readProcEntry(pid)?.command === 'sleep') || null, {
    description: 'the shells and their children to exec sleep',
  });
}

describe('idle check of a polling reader', () => {
  const tracker = useProcessTracker();

  it('keeps sleeping processes without a stat read', async () => {
    const shell = startShell(tracker, 'sleep 60 & echo $!; exec sleep 60');
    const [sleeper] = await shell.pids(1);
    const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS, keepIdle: true });
    const kept = await untilKept(reader, sleeper as number);
    expect(kept.command).toBe('sleep');
    // The sleeper's, at least; every process read is either stat-read or kept.
    const reads = reader.lastSnapshotReads();
    expect(reads.kept).toBeGreaterThan(0);
    expect(reads.stats).toBeGreaterThan(0);
    reader.close();
  });

  it('shows a kept child its new parent at the next read after its parent died', async () => {
    // The shell leaves a child sleeping, then sleeps itself: killed, it reparents the child.
    const shell = startShell(tracker, 'sleep 60 & echo $!; exec sleep 60');
    const [child] = (await shell.pids(1)) as [number];
    const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS, keepIdle: true });
    const kept = await untilKept(reader, child);
    expect(kept.ppid).toBe(shell.pid);
    shell.child.kill('SIGKILL');
    // The kernel reparents the children in the parent's exit, before it turns zombie.
    await pollUntil(() => (readStatFields(shell.pid)?.state ?? 'Z') === 'Z' || null, {
      deadlineMs: SHELL_LINES_WAIT_MS,
      description: 'the parent to die',
    });
    const after = reader.snapshot().entries.get(child);
    expect(after?.command).toBe('sleep');
    expect(after?.ppid).not.toBe(shell.pid);
    expect(after?.ppid).toBe(readStatFields(child)?.ppid);
    reader.close();
  });

  it('shows every read the CPU of a process whose main thread sleeps while another thread runs', async () => {
    const script =
      "const { Worker } = require('node:worker_threads'); new Worker('for (;;) {}', { eval: true }); " +
      'console.log(process.pid); setInterval(() => {}, 1000);';
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = tracker.trackChild(child);
    const lines: string[] = [];
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
    await pollUntil(() => lines.length > 0 || null, {
      deadlineMs: SHELL_LINES_WAIT_MS,
      description: 'the spinner to start',
    });
    const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS, keepIdle: true });
    for (let read = 0; read < WARM_READS; read += 1) reader.snapshot();
    let last = reader.snapshot().entries.get(pid)?.cpuTimeMs ?? Number.NaN;
    for (let read = 0; read < 3; read += 1) {
      // The spinner has run since the last read (a fresh read says so; a busy machine may hold it
      // off the CPU for a while): the reader's next read shows at least that much CPU.
      const ran = await pollUntil(
        () => {
          const fresh = readProcEntry(pid)?.cpuTimeMs ?? Number.NaN;
          return fresh > last ? fresh : null;
        },
        { deadlineMs: SHELL_LINES_WAIT_MS, description: `the spinner to run past ${last} ms of CPU` },
      );
      const now = reader.snapshot().entries.get(pid)?.cpuTimeMs ?? Number.NaN;
      expect(now).toBeGreaterThanOrEqual(ran);
      last = now;
    }
    reader.close();
  });

  it('shows a kept process that exits as a zombie, then gone, at the next read each time', async () => {
    // `exec sleep` never reaps: the killed child stays a zombie until its parent is killed.
    const shell = startShell(tracker, 'sleep 60 & echo $!; exec sleep 60');
    const [child] = (await shell.pids(1)) as [number];
    const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS, keepIdle: true });
    await untilKept(reader, child);
    process.kill(child, 'SIGKILL');
    await pollUntil(() => readStatFields(child)?.state === 'Z' || null, {
      deadlineMs: SHELL_LINES_WAIT_MS,
      description: 'the child to turn zombie',
    });
    expect(reader.snapshot().entries.get(child)?.state).toBe('Z');
    shell.child.kill('SIGKILL');
    await pollUntil(() => readStatFields(child) === null || null, {
      deadlineMs: SHELL_LINES_WAIT_MS,
      description: 'the zombie to be reaped',
    });
    expect(reader.snapshot().entries.has(child)).toBe(false);
    reader.close();
  });

  it('shows a process started since the last read at the next read, one or many', async () => {
    const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS, keepIdle: true });
    for (let read = 0; read < WARM_READS; read += 1) reader.snapshot();
    const one = startShell(tracker, 'sleep 60 & echo $!; exec sleep 60');
    const [sleeper] = await one.pids(1);
    // `$!` is printed once sh forked: wait for the execs (without reading through the reader).
    await untilExeced([one.pid, sleeper as number]);
    let table = reader.snapshot();
    expect(table.entries.get(one.pid)?.command).toBe('sleep');
    expect(table.entries.get(sleeper as number)?.command).toBe('sleep');
    // More forks than the watch probes one by one: it lists /proc.
    const many = startShell(
      tracker,
      'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 60 & echo $!; done; exec sleep 60',
    );
    const sleepers = await many.pids(20);
    await untilExeced([many.pid, ...sleepers]);
    table = reader.snapshot();
    for (const pid of sleepers) expect(table.entries.get(pid)?.command).toBe('sleep');
    expect(table.entries.get(many.pid)?.command).toBe('sleep');
    reader.close();
  });

  it('hands back the last schedstat text itself while a process sleeps, and new text once it ran', async () => {
    // A shell that runs only when told: each line it reads, it answers.
    const shell = startShell(tracker, 'echo $$; while read line; do echo "ran $line"; done');
    const [pid] = (await shell.pids(1)) as [number];
    const held = createHeldStats();
    try {
      // The stat read holds the pid's files; the schedstat is held beside them from its first read.
      expect(readHeldStatFields(pid, held, true)).not.toBeNull();
      const first = await pollUntil(() => readHeldSchedstat(pid, held), { description: 'a schedstat text' });
      const asleep = await pollUntil(
        () => {
          const again = readHeldSchedstat(pid, held, first);
          // The very object: the idle poll made no string for it.
          return again === first ? again : null;
        },
        { deadlineMs: SHELL_LINES_WAIT_MS, description: `shell ${pid} asleep between two schedstat reads` },
      );
      const lines: string[] = [];
      createInterface({ input: shell.child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
      shell.child.stdin?.write('1\n');
      await pollUntil(() => lines.includes('ran 1') || null, { description: 'the shell to answer' });
      const after = readHeldSchedstat(pid, held, asleep);
      expect(after).not.toBeNull();
      expect(after).not.toBe(asleep);
      expect(after).not.toEqual(asleep);
    } finally {
      held.close();
    }
  });
});
