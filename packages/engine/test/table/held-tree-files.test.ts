/**
 * A tree walk's held files, on real processes: a walk holds each process's stat and children files
 * and a pidfd pinned to it; a re-read through the held children file shows a child forked since;
 * a reaped process gives all three back; `close()` gives back everything. A pidfd pinned to a
 * process that was reaped reaches nobody, even when its pid was forced onto another process
 * (a pid namespace), and the next walk pins the new process instead. A kill of a named tree gives
 * back what its walks held.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import { heldStatFiles } from '../../src/table/held-stats.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import {
  identityOf,
  pidNamespaceUnavailable,
  pollUntil,
  runInPidNamespace,
  useProcessTracker,
} from '../helpers/index.js';

/** What held-tree-reuse-namespace.mjs reports. */
interface HeldTreeReuseResult {
  readonly reused: boolean;
  readonly pinnedBefore: boolean;
  readonly staleSignal: string;
  readonly innocentState: string;
  readonly stale: { readonly startTime: string; readonly command: string } | null;
  readonly seen: { readonly startTime: string; readonly command: string } | null;
  readonly staleStillPinned: boolean;
  readonly innocentPinned: boolean;
}

/** stat, children and (for an owner's reader) a pidfd for each walked process. */
const FILES_PER_PROCESS = 3;
const uid = process.getuid?.() ?? -1;

describe.skipIf(process.platform !== 'linux')('held tree files', () => {
  const tracker = useProcessTracker();

  it('hold stat, children and a pinned pidfd per walked process; show a later child; give back on reap and close', async () => {
    // Its own group, so cleanup reaches the sleeper it forks too.
    const shell = spawn('/bin/sh', ['-c', 'read go; sleep 300 & wait'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const shellPid = tracker.trackChild(shell, { detached: true });
    await once(shell, 'spawn');
    const before = heldStatFiles();
    const reader = createLinuxReader({ cwd: false, pinPidfds: true });
    const first = reader.snapshotTrees([shellPid]);
    expect([...first.entries.keys()]).toEqual([shellPid]);
    // The children file is opened at its first read, in the walk, beside the stat and the pidfd.
    expect(heldStatFiles() - before).toBe(FILES_PER_PROCESS);
    const shellEntry = first.entries.get(shellPid);
    expect(reader.pinnedPidfds([{ pid: shellPid, startTime: shellEntry?.startTime ?? '' }], uid)).not.toBeNull();
    expect(reader.pinnedPidfds([{ pid: shellPid, startTime: 'another' }], uid)).toBeNull();
    expect(reader.pinnedPidfds([{ pid: shellPid, startTime: shellEntry?.startTime ?? '' }], uid + 1)).toBeNull();

    shell.stdin?.write('go\n');
    const walk = await pollUntil(
      () => {
        const read = reader.snapshotTrees([shellPid]);
        // Forked, and exec'd: a walk between the two shows the child as a second sh.
        return [...read.entries.values()].some((entry) => entry.command === 'sleep') ? read : null;
      },
      { deadlineMs: 10_000, description: 'the forked sleeper to show through the held children file' },
    );
    const sleeper = [...walk.entries.values()].find((entry) => entry.pid !== shellPid);
    expect(sleeper?.command).toBe('sleep');
    expect(heldStatFiles() - before).toBe(2 * FILES_PER_PROCESS);

    process.kill(sleeper?.pid ?? 0, 'SIGKILL');
    await once(shell, 'exit');
    expect(reader.snapshotTrees([shellPid, sleeper?.pid ?? 0]).entries.size).toBe(0);
    expect(heldStatFiles()).toBe(before);

    const again = spawn('sleep', ['60'], { stdio: 'ignore' });
    const againPid = tracker.trackChild(again);
    await once(again, 'spawn');
    reader.snapshotTrees([againPid]);
    expect(heldStatFiles() - before).toBe(FILES_PER_PROCESS);
    reader.close();
    expect(heldStatFiles()).toBe(before);
  });

  it('hold no pidfd for a reader that only shows trees', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = tracker.trackChild(sleeper);
    await once(sleeper, 'spawn');
    const before = heldStatFiles();
    const reader = createLinuxReader();
    const entry = reader.snapshotTrees([pid]).entries.get(pid);
    expect(heldStatFiles() - before).toBe(FILES_PER_PROCESS - 1);
    expect(reader.pinnedPidfds([{ pid, startTime: entry?.startTime ?? '' }])).toBeNull();
    reader.close();
    expect(heldStatFiles()).toBe(before);
  });

  it('are given back when a kill of a named tree ends', async () => {
    const shell = spawn('/bin/sh', ['-c', 'sleep 300 & sleep 300 & wait'], { detached: true, stdio: 'ignore' });
    const shellPid = tracker.trackChild(shell, { detached: true });
    await pollUntil(() => createLinuxReader({ cwd: false }).snapshotTrees([shellPid]).entries.size === 3, {
      deadlineMs: 10_000,
      description: 'the shell and its two sleepers',
    });
    const before = heldStatFiles();
    const outcome = await killTree(identityOf(shellPid), { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(outcome.killed).toHaveLength(3);
    expect(heldStatFiles()).toBe(before);
  });

  const reason = pidNamespaceUnavailable('table/linux-reader.js');
  it.skipIf(reason !== null)(
    `never signal a recycled pid through a pidfd pinned to the process it had${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const result = await runInPidNamespace<HeldTreeReuseResult>('held-tree-reuse-namespace.mjs');
      expect(result.reused).toBe(true);
      expect(result.pinnedBefore).toBe(true);
      expect(result.stale).toMatchObject({ command: 'sleep' });
      // The SIGSTOP went to the reaped sleeper's pidfd: ESRCH, and the new holder of the pid ran on.
      expect(result.staleSignal).toBe('gone');
      expect(result.innocentState).not.toBe('T');
      expect(result.seen).toMatchObject({ command: 'tail' });
      expect(result.staleStillPinned).toBe(false);
      expect(result.innocentPinned).toBe(true);
    },
  );
});
