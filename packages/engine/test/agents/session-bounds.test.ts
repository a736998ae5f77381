/**
 * Issue 19's class, over real processes: a session record never makes a kill target of a process
 * that started after the session ended or before its root started. Planted records (a private
 * 0600 file naming a live process as a member), a resumed session's id carrier judged against the
 * earlier run's ended record, and a stale record whose session began after the process did: none
 * of them is reported, so neither `orphans --clean` nor `watch --auto-clean` nor the UI can end
 * it. Each case has its control (the same record with bounds that hold), so the test can fail.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { writeSession } from '../../src/agents/sessions/session-store.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { makeTempDir, spawnFixture, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
/** A pid no process has here (above the default pid_max), so the record's root is gone. */
const GONE_ROOT = { pid: 4_194_000, startTime: '1', args: ['claude'] };
const MINUTE_MS = 60_000;
let stateRoot = makeTempDir();

afterEach(() => {
  stateRoot = makeTempDir();
});

function startCarrier(sessionId: string): ProcessEntry {
  const fixture = spawnFixture(tracker, 'run-forever.mjs', ['carrier'], {
    detached: true,
    env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: sessionId },
  });
  const entry = readProcEntry(fixture.pid);
  if (entry === null) throw new Error('the carrier did not start');
  return entry;
}

/** Each call writes its own record (`label`): a second write of one id would merge the ends (the earliest wins). */
function plant(
  label: string,
  sessionId: string,
  carrier: ProcessEntry,
  bounds: { start: number; end: number },
  asMember: boolean,
) {
  const record: StoredSession = {
    version: 1,
    id: `claude-code-${sessionId}-${label}`,
    agent: 'claude-code',
    root: GONE_ROOT,
    cwd: null,
    startedAtMs: bounds.start,
    lastSeenAtMs: bounds.end,
    endedAtMs: bounds.end,
    members: asMember
      ? [{ pid: carrier.pid, startTime: carrier.startTime, ppid: 1, role: 'other', args: [], via: 'marker' }]
      : [],
    sessionKeys: [`claude-code:session:${sessionId}`],
  };
  writeSession(stateRoot, record);
}

function leakedPids(): number[] {
  const { rules } = loadAgentRules(stateRoot);
  const observation = observeAgentsOnce({ stateRoot, rules, readMarkers: markerReaderFor(rules) });
  return observation.leaks.flatMap((leak) => leak.processes.map((process) => process.entry.pid));
}

describe('a session record names only processes that started within the session', () => {
  it('ignores a planted record whose session ended before its member started (control: ended after)', () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at - 2 * MINUTE_MS, end: at - MINUTE_MS }, true);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - 2 * MINUTE_MS, end: at + MINUTE_MS }, true);
    expect(leakedPids()).toContain(carrier.pid);
  });

  it("does not judge a resumed run's id carrier against the earlier run's ended record (control: within it)", () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at - 3 * MINUTE_MS, end: at - MINUTE_MS }, false);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - 3 * MINUTE_MS, end: at + MINUTE_MS }, false);
    expect(leakedPids()).toContain(carrier.pid);
  });

  it('ignores a stale record whose session began after the process did (control: began before)', () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at + MINUTE_MS, end: at + 2 * MINUTE_MS }, true);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - MINUTE_MS, end: at + 2 * MINUTE_MS }, true);
    expect(leakedPids()).toContain(carrier.pid);
  });
});
