import { describe, expect, it } from 'vitest';
import { pidNamespaceUnavailable, runInPidNamespace } from '../helpers/index.js';

/**
 * Pid reuse made real: inside a fresh pid namespace the test forces a killed worker's pid onto an
 * innocent process, and the engine (which must run inside the namespace to see its pid numbers,
 * hence the built dist) is asked to kill the stale identity.
 */
/** One kill's account, as pid-reuse-namespace.mjs reports it. */
interface KillAccount {
  readonly result: string;
  readonly error?: string;
  readonly timeline: readonly string[];
}

/** What pid-reuse-namespace.mjs reports. */
interface PidReuseResult {
  readonly reused: boolean;
  readonly pid: number;
  readonly staleStart: string;
  readonly innocentStart: string;
  readonly direct: KillAccount;
  readonly owned: KillAccount;
  readonly innocentAlive: boolean;
}

const reason = pidNamespaceUnavailable('kill/kill-tree.js');

describe('pid reuse in a pid namespace', () => {
  it.skipIf(reason !== null)(
    `refuses a stale identity and leaves the new process untouched${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      // The namespace's init is the fixture; when it exits the kernel ends everything inside.
      const result = await runInPidNamespace<PidReuseResult>('pid-reuse-namespace.mjs');
      expect(result.reused).toBe(true);
      expect(result.innocentStart).not.toBe(result.staleStart);
      const expected = `identity became uncertain: pid ${result.pid} now has start time ${result.innocentStart}, expected ${result.staleStart}`;
      expect(result.direct.result).toBe('refused');
      expect(result.direct.error).toContain(expected);
      expect(result.owned.result).toBe('refused');
      expect(result.owned.error).toContain(expected);
      for (const run of [result.direct, result.owned]) {
        expect(run.timeline).not.toContain('SIGTERM');
        expect(run.timeline).not.toContain('SIGKILL');
      }
      expect(result.innocentAlive).toBe(true);
    },
  );
});
