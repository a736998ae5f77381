/**
 * Another user's process is refused at once, before any signal, like the other protections: no
 * attempts, no fallback, no retries through the verify bounds (it used to take ~9 s to answer
 * `kill_failed`). Real processes of another uid: we are root here, so `setpriv` starts them, and
 * the non-root killer is a real node process running the built engine as uid nobody.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectOutput } from '../../../../test-support/cli-helpers.js';
import { killTree } from '../../src/kill/kill-tree.js';
import { readProcEntry } from '../../src/table/index.js';
import { identityOf, isRunning, pollUntil, useProcessTracker } from '../helpers/index.js';

const NOBODY = 65534;
const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
/** A lifetime cap for every sleeper here, in case cleanup never came. */
const SLEEP_SECONDS = '60';
/** Bound on the nobody killer (node start-up on a loaded machine). */
const KILLER_TIMEOUT_MS = 25_000;
const ENGINE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const SIGNALS = new Set(['SIGTERM', 'stop', 'SIGKILL', 'fallback-direct', 'retry', 'continue']);
const isRoot = process.getuid?.() === 0;

/** The first child of `pid` (the shell's backgrounded setpriv, which execs sleep), or null. */
function childOf(pid: number): number | null {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first === undefined || first === '' ? null : Number(first);
  } catch {
    return null;
  }
}

describe.skipIf(!isRoot || process.platform !== 'linux')("another user's process", () => {
  const tracker = useProcessTracker();

  it('is refused before any signal, with the EPERM message, and keeps running', async () => {
    const other = spawn('sleep', [SLEEP_SECONDS], { uid: NOBODY, gid: NOBODY, stdio: 'ignore', detached: true });
    const pid = tracker.trackChild(other, { detached: true });
    await pollUntil(() => isRunning(pid), { description: "the other user's sleep" });
    const outcome = await killTree(identityOf(pid), { graceMs: 300 });
    expect(outcome.result).toBe('refused');
    expect(outcome.attempts).toBe(0);
    expect(outcome.error).toBe(
      `EPERM: pid ${pid} belongs to uid ${NOBODY}, not to this user (uid 0); Treewarden only signals its own user's processes`,
    );
    expect(outcome.timeline.filter((entry) => SIGNALS.has(entry.action))).toEqual([]);
    expect(isRunning(pid)).toBe(true);
  });

  it('refuses our own tree holding another user’s member before SIGTERMing any of it', async () => {
    const parent = spawn('sh', ['-c', `setpriv ${AS_NOBODY.join(' ')} sleep ${SLEEP_SECONDS} & wait`], {
      stdio: 'ignore',
      detached: true,
    });
    const pid = tracker.trackChild(parent, { detached: true });
    const member = await pollUntil(
      () => {
        const child = childOf(pid);
        return child !== null && readProcEntry(child)?.uid === NOBODY ? child : undefined;
      },
      { description: "the tree's member of uid nobody" },
    );
    tracker.trackPid(member);
    const outcome = await killTree(identityOf(pid), { graceMs: 300 });
    expect(outcome.result).toBe('refused');
    expect(outcome.error).toMatch(new RegExp(`^EPERM: pid ${member} belongs to uid ${NOBODY}`));
    expect(outcome.timeline.filter((entry) => SIGNALS.has(entry.action))).toEqual([]);
    expect(isRunning(pid)).toBe(true);
    expect(isRunning(member)).toBe(true);
  });

  it('is refused at once when the killer is not root (the engine run as uid nobody on a root process)', async () => {
    const target = spawn('sleep', [SLEEP_SECONDS], { stdio: 'ignore', detached: true });
    const pid = tracker.trackChild(target, { detached: true });
    await pollUntil(() => isRunning(pid), { description: "root's sleep" });
    const { startTime } = identityOf(pid);
    const script = `import(${JSON.stringify(ENGINE_DIST)}).then(async (engine) => {
      const outcome = await engine.killTree({ pid: ${pid}, startTime: ${JSON.stringify(startTime)} }, { graceMs: 300 });
      process.stdout.write(JSON.stringify({ result: outcome.result, attempts: outcome.attempts, error: outcome.error }));
    });`;
    const killer = spawn('setpriv', [...AS_NOBODY, process.execPath, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tracker.trackChild(killer);
    const result = await collectOutput(killer, { description: 'the nobody killer', timeoutMs: KILLER_TIMEOUT_MS });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      result: 'refused',
      attempts: 0,
      error: `EPERM: pid ${pid} belongs to uid 0, not to this user (uid ${NOBODY}); Treewarden only signals its own user's processes`,
    });
    expect(isRunning(pid)).toBe(true);
  });
});
