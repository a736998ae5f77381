/**
 * The polling reader's held stat files and its cwd refresh, on real processes: files are held
 * only from a reader's second read, a reaped process reads as gone and gives its file back, a
 * recycled pid (forced inside a pid namespace) reads as the new process, `close()` gives back
 * everything; a cwd that moved without the process running shows within CWD_REFRESH_POLLS reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { heldStatFiles, openFileLimit } from '../../src/table/held-stats.js';
import { CWD_REFRESH_POLLS, createLinuxReader } from '../../src/table/linux-reader.js';
import {
  makeTempDir,
  pidNamespaceUnavailable,
  pollUntil,
  removeTempDir,
  runInPidNamespace,
  useProcessTracker,
} from '../helpers/index.js';

const LINE_WAIT_MS = 10_000;
/** A refresh period no pid of this machine meets within a test (pid % it equals the read count). */
const NO_REFRESH_POLLS = 2 ** 30;

/** What held-stat-reuse-namespace.mjs reports (identities as startTime and command). */
interface HeldReuseResult {
  readonly reused: boolean;
  readonly heldBefore: boolean;
  readonly stale: { readonly startTime: string; readonly command: string } | null;
  readonly seen: { readonly startTime: string; readonly command: string } | null;
  readonly innocent: { readonly startTime: string; readonly command: string } | null;
}

interface ReadyShell {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly lines: readonly string[];
}

/** A shell that runs `script` (with `$0` = `arg`) and says "ready" on stdout once it is set up. */
async function startReadyShell(
  tracker: ReturnType<typeof useProcessTracker>,
  script: string,
  options: { readonly cwd?: string; readonly arg?: string } = {},
): Promise<ReadyShell> {
  const child = spawn('/bin/sh', ['-c', script, options.arg ?? 'sh'], {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const pid = tracker.trackChild(child);
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  await pollUntil(() => lines.includes('ready'), { deadlineMs: LINE_WAIT_MS, description: 'the shell to be ready' });
  return { child, pid, lines };
}

/** How many snapshots, from now, until `pid`'s entry shows `cwd` (null: not within `limit`). */
function snapshotsUntilCwd(reader: ReturnType<typeof createLinuxReader>, pid: number, cwd: string, limit: number) {
  for (let read = 1; read <= limit; read += 1) if (reader.snapshot().entries.get(pid)?.cwd === cwd) return read;
  return null;
}

describe('held stat files', () => {
  const tracker = useProcessTracker();

  it('holds nothing for one read, holds from the second, and gives back a reaped process and everything on close', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = tracker.trackChild(sleeper);
    await once(sleeper, 'spawn');
    const before = heldStatFiles();
    const reader = createLinuxReader();
    const first = reader.snapshot();
    expect(first.entries.get(pid)?.command).toBe('sleep');
    expect(heldStatFiles()).toBe(before);
    const second = reader.snapshot();
    const held = heldStatFiles() - before;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(second.entries.size);
    expect(second.entries.get(pid)?.command).toBe('sleep');
    // From the third read on, a single-threaded process's schedstat is held beside its stat.
    const third = reader.snapshot();
    const warm = heldStatFiles() - before;
    expect(third.entries.get(pid)?.command).toBe('sleep');
    expect(warm).toBeLessThanOrEqual(2 * third.entries.size);
    sleeper.kill('SIGKILL');
    await once(sleeper, 'exit');
    const fourth = reader.snapshot();
    expect(fourth.entries.has(pid)).toBe(false);
    expect(heldStatFiles() - before).toBeLessThan(warm + 1);
    reader.close();
    expect(heldStatFiles()).toBe(before);
  });

  it('reads the open-file limit that bounds them', () => {
    expect(openFileLimit('Max open files            1024                 4096                 files     \n')).toBe(
      1024,
    );
    expect(openFileLimit('Max open files            unlimited            unlimited            files\n')).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(openFileLimit('garbage')).toBeNull();
    expect(openFileLimit()).toBeGreaterThan(0);
  });

  const reason = pidNamespaceUnavailable('table/linux-reader.js');
  it.skipIf(reason !== null)(
    `reads a recycled pid as the new process, never as the one its held file named${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const result = await runInPidNamespace<HeldReuseResult>('held-stat-reuse-namespace.mjs');
      expect(result.reused).toBe(true);
      expect(result.heldBefore).toBe(true);
      expect(result.stale).toMatchObject({ command: 'sleep' });
      expect(result.seen).toEqual(result.innocent);
      expect(result.seen).toMatchObject({ command: 'tail' });
    },
  );
});

describe('cwd refresh of a polling reader', () => {
  const tracker = useProcessTracker();

  it('shows a renamed directory within CWD_REFRESH_POLLS reads, and at once with cwdRefreshPolls 1', async () => {
    const dir = makeTempDir();
    try {
      const before = join(dir, 'before');
      const after = join(dir, 'after');
      mkdirSync(before);
      // The process sleeps throughout: its cwd text changes only because the directory moved.
      const { pid } = await startReadyShell(tracker, 'echo ready; exec sleep 60', { cwd: before });
      const polling = createLinuxReader();
      const exact = createLinuxReader({ cwdRefreshPolls: 1 });
      for (const reader of [polling, exact]) expect(reader.snapshot().entries.get(pid)?.cwd).toBe(before);
      renameSync(before, after);
      expect(snapshotsUntilCwd(exact, pid, after, 1)).toBe(1);
      const reads = snapshotsUntilCwd(polling, pid, after, CWD_REFRESH_POLLS);
      expect(reads).not.toBeNull();
      expect(reads).toBeLessThanOrEqual(CWD_REFRESH_POLLS);
      polling.close();
      exact.close();
    } finally {
      removeTempDir(dir);
    }
  });

  it('shows a chdir by a process that ran at the very next read', async () => {
    const dir = makeTempDir();
    try {
      // `cd`, then a busy loop long enough to cost CPU ticks, then a line to say so; it stays sh.
      const shell = await startReadyShell(
        tracker,
        'echo ready; read go; cd "$0"; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo moved; read stay',
        { arg: dir },
      );
      // No rotating refresh within this test's reads: only the idle check can show the move.
      const reader = createLinuxReader({ cwdRefreshPolls: NO_REFRESH_POLLS });
      const start = reader.snapshot().entries.get(shell.pid);
      expect(start?.cwd).not.toBe(dir);
      reader.snapshot();
      shell.child.stdin?.write('go\n');
      await pollUntil(() => shell.lines.includes('moved'), {
        deadlineMs: LINE_WAIT_MS,
        description: 'the shell to move',
      });
      const moved = reader.snapshot().entries.get(shell.pid);
      expect(moved?.command).toBe('sh');
      expect(moved?.cpuTimeMs).toBeGreaterThan(start?.cpuTimeMs ?? 0);
      expect(moved?.cwd).toBe(dir);
      reader.close();
    } finally {
      removeTempDir(dir);
    }
  });
});
