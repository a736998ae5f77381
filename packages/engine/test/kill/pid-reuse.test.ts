import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/index.js';

/**
 * Pid reuse made real: inside a fresh pid namespace the test forces a killed worker's pid onto an
 * innocent process, and the engine (which must run inside the namespace to see its pid numbers,
 * hence the built dist) is asked to kill the stale identity.
 */
const ENGINE_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const NAMESPACE_RUN_MS = 20_000;

function unavailableReason(): string | null {
  if (process.platform !== 'linux') return 'pid namespaces are Linux-only';
  if (process.getuid?.() !== 0) return 'unshare --pid needs root';
  if (!existsSync('/usr/bin/unshare')) return 'unshare (util-linux) is not installed';
  if (!existsSync(`${ENGINE_DIST}kill/kill-tree.js`)) return `the engine is not built (${ENGINE_DIST}); run npx tsc -b`;
  return null;
}

const reason = unavailableReason();

describe('pid reuse in a pid namespace', () => {
  it.skipIf(reason !== null)(
    `refuses a stale identity and leaves the new process untouched${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      // The namespace's init is the fixture; when it exits the kernel ends everything inside.
      const { stdout } = await promisify(execFile)(
        '/usr/bin/unshare',
        ['--pid', '--fork', '--mount-proc', process.execPath, fixturePath('pid-reuse-namespace.mjs'), ENGINE_DIST],
        { timeout: NAMESPACE_RUN_MS, killSignal: 'SIGKILL' },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
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
