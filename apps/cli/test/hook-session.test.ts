/**
 * `treewarden hook claude` end to end over real processes: a fake Claude Code runs the built
 * CLI as its SessionStart/SessionEnd hook (through `sh -c`, the event on stdin). SessionStart
 * records the session with the agent's identity; the agent's members carry its session id (one
 * setsid'ed, one with a child whose id was removed); the agent exits after SessionEnd, and the
 * detached reaper ends everything with the id and its descendants, while another session's
 * process and a marker-less one live on. Malformed input: one line on stderr, exit 0.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HOOK_AGENTS,
  hookRecordId,
  REAPER_ENTRY,
  REAPER_LEDGER_REASON,
  readProcTable,
  readSession,
  resolveStateDir,
  type StoredSession,
} from '@treewarden/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { hookReports, reportedPid, startHookedClaude } from '../../../test-support/hooked-agent.js';
import {
  identityOf,
  isRunning,
  pollUntil,
  readReportedPids,
  spawnFixture,
  useProcessTracker,
} from '../../../test-support/index.js';

/** Bound on the reaper's whole run: node start-up, the agent's exit, the kill's grace, on a loaded machine. */
const REAPER_DONE_WAIT_MS = 45_000;
/** Bound on a hook-written record showing up (the hook is a node start-up). */
const RECORD_WAIT_MS = 25_000;
/** Per test: several node start-ups (agent, hooks, reaper, CLI) on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 120_000;

const tracker = useProcessTracker();

beforeAll(() => assertBuilt());

function recordOf(sessionId: string): StoredSession | null {
  return readSession(resolveStateDir(), hookRecordId(HOOK_AGENTS.claude, sessionId));
}

/** Reapers of this file's state dir (tracked, so a failed test leaves none behind): their one argument is a hand-off file in it. */
function trackReapers(): void {
  const stateDir = resolveStateDir();
  for (const entry of readProcTable().entries.values())
    if (entry.args[1] === REAPER_ENTRY && entry.args[2]?.startsWith(`${stateDir}/`) === true)
      tracker.trackPid(entry.pid);
}

describe('treewarden hook claude', () => {
  it(
    'records the session at SessionStart and ends everything carrying its id after SessionEnd',
    async () => {
      const other = spawnFixture(tracker, 'run-forever.mjs', ['other-session'], {
        detached: true,
        env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: randomUUID() },
      });
      const plain = spawnFixture(tracker, 'run-forever.mjs', ['plain'], { detached: true });
      // Carries the session's id but started before the agent: no member of it (startedWithinSession).
      const sessionId = randomUUID();
      const early = spawnFixture(tracker, 'run-forever.mjs', ['early'], {
        detached: true,
        env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: sessionId },
      });
      await readReportedPids(tracker, early.reportFile, 1);
      const agent = await startHookedClaude(tracker, { sessionId });
      const [start] = hookReports(agent);
      expect(start).toMatchObject({ event: 'SessionStart', code: 0, stdout: '', stderr: '' });

      const opened = await pollUntil(() => recordOf(agent.sessionId), {
        description: 'the SessionStart record',
        deadlineMs: RECORD_WAIT_MS,
      });
      expect(opened.root).toMatchObject(identityOf(agent.rootPid));
      expect(opened.endedAtMs).toBeNull();
      expect(opened.hook).toMatchObject({ sessionId: agent.sessionId, envKey: 'CLAUDE_CODE_SESSION_ID' });
      expect(opened.sessionKeys).toContain(`claude-code:session:${agent.sessionId}`);

      const leftovers = ['member', 'dev-server', 'no-id-child'].map((role) => identityOf(reportedPid(agent, role)));
      const innocents = [identityOf(other.pid), identityOf(plain.pid), identityOf(early.pid)];
      process.kill(agent.rootPid, 'SIGUSR2');
      await pollUntil(() => !isRunning(agent.rootPid), {
        description: 'the agent to exit',
        deadlineMs: RECORD_WAIT_MS,
      });
      trackReapers();
      const end = hookReports(agent).find((report) => report.event === 'SessionEnd');
      expect(end).toMatchObject({ code: 0, stdout: '', stderr: '' });

      const closed = await pollUntil(
        () => {
          const record = recordOf(agent.sessionId);
          return record?.hook?.cleanup !== undefined ? record : null;
        },
        { description: "the reaper's report in the record", deadlineMs: REAPER_DONE_WAIT_MS },
      );
      for (const { pid, startTime } of leftovers) expect(isRunning(pid, startTime), `leftover ${pid}`).toBe(false);
      for (const { pid, startTime } of innocents) expect(isRunning(pid, startTime), `innocent ${pid}`).toBe(true);
      expect(closed.endedAtMs).not.toBeNull();
      expect(closed.hook?.cleanup?.survivors).toEqual([]);
      const ended = closed.hook?.cleanup?.ended.map((identity) => identity.pid) ?? [];
      for (const { pid } of leftovers) expect(ended).toContain(pid);
      expect(ended).not.toContain(agent.rootPid);
      const ledger = readFileSync(join(resolveStateDir(), 'ledger.jsonl'), 'utf8');
      expect(ledger).toContain(REAPER_LEDGER_REASON);
      expect(ledger).toContain(agent.sessionId);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'answers malformed input with one line on stderr and exit 0, nothing on stdout',
    async () => {
      const agent = await startHookedClaude(tracker, { malformedHook: true });
      const malformed = hookReports(agent).find((report) => report.event === null);
      expect(malformed).toMatchObject({ code: 0, stdout: '' });
      expect(String(malformed?.stderr)).toMatch(/^treewarden hook: stdin is not JSON: .*\n$/);
      expect(String(malformed?.stderr).trim().split('\n')).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'leaves an agent killed before SessionEnd to plain orphans --clean: its id carriers are session-known leaks',
    async () => {
      const plain = spawnFixture(tracker, 'run-forever.mjs', ['plain'], { detached: true });
      const agent = await startHookedClaude(tracker);
      await pollUntil(() => recordOf(agent.sessionId), {
        description: 'the SessionStart record',
        deadlineMs: RECORD_WAIT_MS,
      });
      const leftovers = ['member', 'dev-server', 'no-id-child'].map((role) => identityOf(reportedPid(agent, role)));
      process.kill(agent.rootPid, 'SIGKILL');
      await pollUntil(() => !isRunning(agent.rootPid), { description: 'the agent to die', deadlineMs: RECORD_WAIT_MS });
      // Scoped to this session: other files' leaks on this shared machine are theirs to end.
      const id = hookRecordId(HOOK_AGENTS.claude, agent.sessionId);
      const result = await runCli(['orphans', '--clean', '--json', '--session', id]);
      expect(result.code, result.stderr).toBe(0);
      const body = JSON.parse(result.stdout) as { groups: { sessionId?: string; root?: unknown }[] };
      const group = body.groups.find((candidate) => candidate.sessionId === id);
      expect(group?.root).not.toBeNull();
      for (const { pid, startTime } of leftovers) expect(isRunning(pid, startTime), `leftover ${pid}`).toBe(false);
      expect(isRunning(plain.pid)).toBe(true);
      expect(recordOf(agent.sessionId)?.endedAtMs).not.toBeNull();
    },
    TEST_TIMEOUT_MS,
  );
});
