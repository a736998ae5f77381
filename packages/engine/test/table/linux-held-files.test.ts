/**
 * The /proc files a kill holds open (table/linux-handles.ts): a held re-read is fresh, a held file
 * of a reaped process is dropped with every other file of that process, the last release closes
 * them all, and a recycled pid is read as the new process (with its children), never as the old.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createHeldFiles } from '../../src/table/linux-handles.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { fixturePath, pollUntil, useProcessTracker } from '../helpers/index.js';

const ENGINE_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const NAMESPACE_RUN_MS = 20_000;
/** A cap small enough to reach with one process's two files. */
const TINY_CAP = 1;

const openFds = () => readdirSync('/proc/self/fd').length;

function namespaceUnavailable(): string | null {
  if (process.platform !== 'linux') return 'pid namespaces are Linux-only';
  if (process.getuid?.() !== 0) return 'unshare --pid needs root';
  if (!existsSync('/usr/bin/unshare')) return 'unshare (util-linux) is not installed';
  if (!existsSync(`${ENGINE_DIST}table/linux-reader.js`)) return `the engine is not built (${ENGINE_DIST})`;
  return null;
}

describe.skipIf(process.platform !== 'linux')('held /proc files', () => {
  const tracker = useProcessTracker();

  function startSleeper(): number {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    return tracker.trackChild(child);
  }

  it('re-reads a held stat in place and sees the process as it is now', async () => {
    const pid = startSleeper();
    const files = createHeldFiles();
    try {
      await pollUntil(() => files.read(pid, 'stat')?.includes('(sleep)') === true, { description: 'sleep to exec' });
      expect(files.size).toBe(1);
      process.kill(pid, 'SIGSTOP');
      await pollUntil(() => / T /.test(files.read(pid, 'stat') ?? ''), { description: 'the held stat to show T' });
      expect(files.size).toBe(1);
    } finally {
      files.closeAll();
    }
    expect(files.size).toBe(0);
  });

  it('drops every held file of a reaped process and reads nothing for it', async () => {
    const pid = startSleeper();
    const files = createHeldFiles();
    try {
      expect(files.read(pid, 'stat')).not.toBeNull();
      expect(files.read(pid, `task/${pid}/children`)).toBe('');
      expect(files.size).toBe(2);
      process.kill(pid, 'SIGKILL');
      await pollUntil(() => !existsSync(`/proc/${pid}`), { description: 'the sleeper to be reaped' });
      expect(files.read(pid, 'stat')).toBeNull();
      expect(files.size).toBe(0);
    } finally {
      files.closeAll();
    }
  });

  it('reads through the path past its cap, holding nothing more', () => {
    const pid = startSleeper();
    const files = createHeldFiles(TINY_CAP);
    try {
      expect(files.read(pid, 'stat')).not.toBeNull();
      expect(files.read(pid, `task/${pid}/children`)).toBe('');
      expect(files.size).toBe(TINY_CAP);
    } finally {
      files.closeAll();
    }
  });

  it('a reader holds files only between holdFiles and the last release', async () => {
    const pid = startSleeper();
    const reader = createLinuxReader({ cwd: false });
    const before = openFds();
    const first = reader.holdFiles();
    const second = reader.holdFiles();
    expect((await reader.readTrees([pid]))?.entries.has(pid)).toBe(true);
    expect((await reader.readPids([pid]))?.entries.has(pid)).toBe(true);
    expect(openFds()).toBe(before + 2);
    first();
    first();
    expect(openFds()).toBe(before + 2);
    second();
    expect(openFds()).toBe(before);
    expect((await reader.readTrees([pid]))?.entries.has(pid)).toBe(true);
    expect(openFds()).toBe(before);
  });

  const reason = namespaceUnavailable();
  it.skipIf(reason !== null)(
    `reads a recycled pid as the new process, children included${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const { stdout } = await promisify(execFile)(
        '/usr/bin/unshare',
        ['--pid', '--fork', '--mount-proc', process.execPath, fixturePath('held-files-namespace.mjs'), ENGINE_DIST],
        { timeout: NAMESPACE_RUN_MS, killSignal: 'SIGKILL' },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
      expect(result.reused).toBe(true);
      expect(result.freshStart).toBeDefined();
      expect(result.freshStart).not.toBe(result.staleStart);
      expect(result.childPid).toBeGreaterThan(0);
      // The old process's held children file reads empty: had it been kept, this child were lost.
      expect(result.childSeen).toBe(true);
    },
  );
});
