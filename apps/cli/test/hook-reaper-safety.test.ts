/**
 * The SessionEnd reaper acts only on the agent that ran the hook, once it has exited, over real
 * processes: a SessionEnd for a live agent's session sent by another process of the same user
 * ends nothing and leaves the record as it was; two live agents sharing a session id (a resume
 * in two terminals): B's SessionEnd ends B's leftovers only, never A's children. A 200 KB event
 * still starts a reaper, and no process's command line carries event content.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HOOK_AGENTS,
  hookRecordId,
  type ProcessIdentity,
  REAPER_ENTRY,
  readProcTable,
  readSession,
  resolveStateDir,
  type StoredSession,
} from '@treewarden/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN } from '../../../test-support/cli-helpers.js';
import { type HookedAgent, hookReports, reportedPid, startHookedClaude } from '../../../test-support/hooked-agent.js';
import { identityOf, isRunning, pollUntil, useProcessTracker } from '../../../test-support/index.js';

/** Bound on the reaper's whole run: node start-up, the agent's exit, the kill's grace, on a loaded machine. */
const REAPER_DONE_WAIT_MS = 45_000;
/** Bound on a hook-written record showing up, or a process exiting (node start-ups under load). */
const RECORD_WAIT_MS = 25_000;
/** Per test: several node start-ups (agents, hooks, reapers) on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 150_000;
/** The huge event of the issue: over the kernel's 128 KiB bound on one argv string. */
const HUGE_EVENT_BYTES = 200 * 1024;
const CHILD_ROLES = ['member', 'dev-server', 'no-id-child'] as const;

const tracker = useProcessTracker();

beforeAll(() => assertBuilt());

function recordOf(sessionId: string): StoredSession | null {
  return readSession(resolveStateDir(), hookRecordId(HOOK_AGENTS.claude, sessionId));
}

/**
 * Live reapers of this file's state dir (their one argument is a hand-off file in it; or, as
 * before the hand-off file, the config naming the session), tracked.
 */
function reapers(sessionId: string): number[] {
  const stateDir = resolveStateDir();
  const ours = (arg: string | undefined) =>
    arg?.startsWith(`${stateDir}/`) === true || arg?.includes(sessionId) === true;
  const found: number[] = [];
  for (const entry of readProcTable().entries.values())
    if (entry.args[1] === REAPER_ENTRY && ours(entry.args[2])) {
      tracker.trackPid(entry.pid);
      found.push(entry.pid);
    }
  return found;
}

function childrenOf(agent: HookedAgent): ProcessIdentity[] {
  return CHILD_ROLES.map((role) => identityOf(reportedPid(agent, role)));
}

async function waitForRecord(sessionId: string, rootPid: number): Promise<StoredSession> {
  return pollUntil(
    () => {
      const record = recordOf(sessionId);
      return record?.root.pid === rootPid ? record : null;
    },
    { description: `the record naming ${rootPid}`, deadlineMs: RECORD_WAIT_MS },
  );
}

/**
 * Another process of the same user (a node process, no agent) runs the hook with a SessionEnd
 * for `sessionId`, then exits: the hook's nearest non-shell ancestor is gone, as an agent's is.
 */
async function forgeSessionEnd(sessionId: string): Promise<void> {
  const event = JSON.stringify({ session_id: sessionId, hook_event_name: 'SessionEnd', reason: 'other', cwd: '/' });
  const script = [
    "const { spawnSync } = require('node:child_process');",
    'const [cli, input] = process.argv.slice(1);',
    "spawnSync(process.execPath, [cli, 'hook', 'claude'], { input, stdio: ['pipe', 'ignore', 'ignore'] });",
  ].join('\n');
  const forger = spawn(process.execPath, ['-e', script, CLI_MAIN, event], { stdio: 'ignore' });
  if (forger.pid !== undefined) tracker.trackPid(forger.pid);
  await new Promise<void>((resolve) => forger.once('exit', () => resolve()));
}

describe('the SessionEnd reaper trusts only the exit of the agent that ran the hook', () => {
  it(
    "ends nothing and leaves the record as it was for a SessionEnd another process sends for a live agent's session",
    async () => {
      const agent = await startHookedClaude(tracker);
      const before = await waitForRecord(agent.sessionId, agent.rootPid);
      const children = childrenOf(agent);
      const earlier = new Set(reapers(agent.sessionId));
      await forgeSessionEnd(agent.sessionId);
      const started = reapers(agent.sessionId).filter((pid) => !earlier.has(pid));
      expect(started.length, 'the forged SessionEnd started a reaper').toBeGreaterThan(0);
      await pollUntil(() => started.every((pid) => !isRunning(pid)), {
        description: 'the reaper to finish',
        deadlineMs: REAPER_DONE_WAIT_MS,
      });
      for (const { pid, startTime } of children) expect(isRunning(pid, startTime), `child ${pid}`).toBe(true);
      expect(isRunning(agent.rootPid)).toBe(true);
      expect(recordOf(agent.sessionId)).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "ends B's leftovers only when B, sharing A's session id, ends: A's children live on",
    async () => {
      const sessionId = randomUUID();
      const a = await startHookedClaude(tracker, { sessionId });
      await waitForRecord(sessionId, a.rootPid);
      const b = await startHookedClaude(tracker, { sessionId });
      await waitForRecord(sessionId, b.rootPid);
      const aChildren = childrenOf(a);
      const bChildren = childrenOf(b);
      process.kill(b.rootPid, 'SIGUSR2');
      await pollUntil(() => !isRunning(b.rootPid), { description: 'B to exit', deadlineMs: RECORD_WAIT_MS });
      reapers(sessionId);
      const closed = await pollUntil(
        () => {
          const record = recordOf(sessionId);
          return record?.hook?.cleanup !== undefined ? record : null;
        },
        { description: "the reaper's report in the record", deadlineMs: REAPER_DONE_WAIT_MS },
      );
      for (const { pid, startTime } of bChildren) expect(isRunning(pid, startTime), `B's ${pid}`).toBe(false);
      for (const { pid, startTime } of aChildren) expect(isRunning(pid, startTime), `A's ${pid}`).toBe(true);
      expect(isRunning(a.rootPid)).toBe(true);
      const ended = closed.hook?.cleanup?.ended.map((identity) => identity.pid) ?? [];
      for (const { pid } of bChildren) expect(ended).toContain(pid);
      for (const { pid } of aChildren) expect(ended).not.toContain(pid);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'starts the reaper for a 200 KB event, with no event content on any command line',
    async () => {
      const mark = `tw-pad-${randomBytes(8).toString('hex')}-`;
      const agent = await startHookedClaude(tracker, {
        env: { FAKE_SESSION_END_PADDING_MARK: mark, FAKE_SESSION_END_PADDING_BYTES: String(HUGE_EVENT_BYTES) },
      });
      await waitForRecord(agent.sessionId, agent.rootPid);
      const children = childrenOf(agent);
      const carriers = new Set<number>();
      const scan = (): void => {
        for (const name of readdirSync('/proc')) {
          if (!/^\d+$/.test(name)) continue;
          try {
            if (readFileSync(join('/proc', name, 'cmdline'), 'latin1').includes(mark)) carriers.add(Number(name));
          } catch {
            // Gone between the listing and the read.
          }
        }
      };
      process.kill(agent.rootPid, 'SIGUSR2');
      await pollUntil(() => !isRunning(agent.rootPid), {
        description: 'the agent to exit',
        deadlineMs: RECORD_WAIT_MS,
      });
      const seen = reapers(agent.sessionId);
      scan();
      const end = hookReports(agent).find((report) => report.event === 'SessionEnd');
      expect(end).toMatchObject({ code: 0, stdout: '', stderr: '' });
      const closed = await pollUntil(
        () => {
          scan();
          const record = recordOf(agent.sessionId);
          return record?.hook?.cleanup !== undefined ? record : null;
        },
        { description: "the reaper's report in the record", deadlineMs: REAPER_DONE_WAIT_MS },
      );
      expect(seen.length, 'a reaper was running when the agent exited').toBeGreaterThan(0);
      expect([...carriers]).toEqual([]);
      for (const { pid, startTime } of children) expect(isRunning(pid, startTime), `leftover ${pid}`).toBe(false);
      expect(closed.hook?.cleanup?.survivors).toEqual([]);
      await pollUntil(() => seen.every((pid) => !isRunning(pid)), {
        description: 'the reaper to finish',
        deadlineMs: REAPER_DONE_WAIT_MS,
      });
      expect(readdirSync(join(resolveStateDir(), 'reaper'))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
