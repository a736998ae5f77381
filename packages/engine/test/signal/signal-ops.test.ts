import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadPidfd } from '../../src/runtime/pidfd.js';
import { ownProcessGroup, SignalRefusedError } from '../../src/signal/guards.js';
import { createSignalOps } from '../../src/signal/signal-ops.js';
import {
  isRunning,
  pollUntil,
  readReportedPids,
  spawnFixture,
  startTimeOf,
  useProcessTracker,
} from '../helpers/index.js';

const NOBODY = 65534;

describe('signal ops', () => {
  const tracker = useProcessTracker();

  it('has the pidfd fast path on this kernel', () => {
    expect(process.platform === 'linux' ? loadPidfd() : null).not.toBeNull();
  });

  for (const usePidfd of [true, false]) {
    it(`signals a live identity and reports a changed or vanished one as gone (${usePidfd ? 'pidfd' : 'process.kill fallback'})`, async () => {
      const ops = createSignalOps({ usePidfd });
      const fixture = spawnFixture(tracker, 'run-forever.mjs');
      await readReportedPids(tracker, fixture.reportFile, 1);
      const identity = { pid: fixture.pid, startTime: startTimeOf(fixture.pid) };
      expect(ops.signalProcess({ ...identity, startTime: 'stale' }, 'SIGKILL')).toBe('gone');
      expect(isRunning(fixture.pid)).toBe(true);
      expect(ops.signalProcess(identity, 'SIGKILL')).toBe('sent');
      await pollUntil(() => !isRunning(fixture.pid), { description: 'the process to die' });
      expect(ops.signalProcess(identity, 'SIGKILL')).toBe('gone');
    });
  }

  it('treats ESRCH from a group signal as gone', () => {
    const ops = createSignalOps();
    // PID_MAX_LIMIT is 4,194,304: a pgid above it cannot exist.
    expect(ops.signalGroup(4_194_305, 0)).toBe('gone');
  });

  it('refuses pid 0/1, negative pids, itself, its ancestors and its own group', () => {
    const ops = createSignalOps();
    for (const pid of [0, 1, -1, process.pid, process.ppid]) {
      expect(() => ops.signalProcess({ pid, startTime: '1' }, 0)).toThrow(SignalRefusedError);
    }
    for (const pgid of [0, 1, -3, ownProcessGroup() as number])
      expect(() => ops.signalGroup(pgid, 0)).toThrow(/refusing/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses another user’s process with a clear EPERM message (needs root to start one)',
    async () => {
      const other = spawn('sleep', ['30'], { uid: NOBODY, gid: NOBODY, stdio: 'ignore' });
      tracker.trackChild(other);
      const pid = other.pid as number;
      await pollUntil(() => isRunning(pid), { description: 'the other user’s process' });
      const ops = createSignalOps();
      let error: unknown;
      try {
        ops.signalProcess({ pid, startTime: startTimeOf(pid) }, 'SIGKILL');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SignalRefusedError);
      expect((error as SignalRefusedError).code).toBe('EPERM');
      expect((error as Error).message).toBe(
        `EPERM: pid ${pid} belongs to uid ${NOBODY}, not to this user (uid 0); Treewarden only signals its own user's processes`,
      );
      expect(isRunning(pid)).toBe(true);
    },
  );
});
