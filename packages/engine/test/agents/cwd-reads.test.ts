/**
 * The observer reads cwd only where a session or a leak shows it (it keeps the idle observer cheap), over real
 * processes: a fake Claude session's processes, a marker carrier outside its tree and a process a
 * remembered record names all carry their real cwd; a bystander without agent evidence carries
 * none, in the full scan and in the focused read (an evidence-less orphan under pid 1).
 */
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startFakeAgent } from '../../../../test-support/fake-agents.js';
import { hasMarkers, readFocusedTable } from '../../src/agents/observe/focused-table.js';
import { readFullTable } from '../../src/agents/observe/full-table.js';
import { markerReaderFor } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { makeTempDir, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();

function observerContext() {
  const { rules } = loadAgentRules(makeTempDir());
  return { rules, readMarkers: markerReaderFor(rules), uid: process.getuid?.() };
}

function live(pid: number): ProcessEntry {
  const entry = readProcEntry(pid);
  if (entry === null) throw new Error(`process ${pid} is not running`);
  return entry;
}

/** A record (ended) naming `member`, as an observer or a hook would have written it. */
function recordNaming(member: ProcessEntry): StoredSession {
  return {
    version: 1,
    id: `claude-code-${randomUUID()}`,
    agent: 'claude-code',
    root: { pid: 4_194_000, startTime: '1', args: ['claude'] },
    cwd: null,
    startedAtMs: member.startedAtMs - 1000,
    lastSeenAtMs: member.startedAtMs + 1000,
    endedAtMs: member.startedAtMs + 1000,
    members: [
      { pid: member.pid, startTime: member.startTime, ppid: member.ppid, role: 'other', args: [], via: 'marker' },
    ],
    sessionKeys: [],
  };
}

/** An orphan under pid 1 (its parent exits at once), with `env` in its environment. */
async function orphan(env: Record<string, string>): Promise<number> {
  const fixture = spawnFixture(tracker, 'setsid-escape.mjs', ['--exit'], { detached: true, env });
  const [escaper] = await readReportedPids(tracker, fixture.reportFile, 1);
  const pid = escaper?.child;
  if (typeof pid !== 'number') throw new Error('the escaper reported no child');
  tracker.trackPid(pid);
  await pollUntil(() => readProcEntry(pid)?.ppid === 1 || null, { description: `orphan ${pid} under pid 1` });
  return pid;
}

describe('cwd is read only where a session or a leak shows it', () => {
  it('full scan: the session, a marker carrier and a remembered member have it; a bystander has none', async () => {
    const agent = await startFakeAgent(tracker, 'claude');
    const carrier = spawnFixture(tracker, 'run-forever.mjs', ['carrier'], {
      detached: true,
      env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: randomUUID() },
    });
    const remembered = spawnFixture(tracker, 'run-forever.mjs', ['remembered'], { detached: true });
    const bystander = spawnFixture(tracker, 'run-forever.mjs', ['bystander'], { detached: true });
    await pollUntil(() => [carrier, remembered, bystander].every((f) => readProcEntry(f.pid)?.args.length) || null, {
      description: 'the fixtures to exec',
    });
    const context = observerContext();
    const table = readFullTable(createLinuxReader({ cwd: false }), [recordNaming(live(remembered.pid))], context);
    for (const pid of [...agent.pids, carrier.pid, remembered.pid])
      expect(table.entries.get(pid)?.cwd, `cwd of ${pid}`).toBe(readlinkSync(`/proc/${pid}/cwd`));
    expect(table.entries.get(bystander.pid)?.cwd).toBeNull();
    // Control: the same bystander read with a cwd-reading reader has one, so the null above is the skip.
    expect(createLinuxReader().snapshot().entries.get(bystander.pid)?.cwd).toBe(bystander.dir);
  });

  it('focused read: an orphan with a marker has it, one without evidence has none', async () => {
    const marked = await orphan({ CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: randomUUID() });
    const plain = await orphan({});
    const context = observerContext();
    const table = readFocusedTable([], new Set(), hasMarkers(context.readMarkers), new Map());
    expect(table.entries.get(marked)?.cwd).toBe(readlinkSync(`/proc/${marked}/cwd`));
    expect(table.entries.has(plain)).toBe(true);
    expect(table.entries.get(plain)?.cwd).toBeNull();
    // A remembered record naming the plain orphan makes it shown, so its cwd is read.
    const named = readFocusedTable([recordNaming(live(plain))], new Set(), hasMarkers(context.readMarkers), new Map());
    expect(named.entries.get(plain)?.cwd).toBe(readlinkSync(`/proc/${plain}/cwd`));
  });
});
