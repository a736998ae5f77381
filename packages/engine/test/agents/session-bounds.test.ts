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
import { bootTime, clockTicks } from '../../src/table/linux-stat.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { makeTempDir, spawnFixture, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
/** A pid no process has here (above the default pid_max), so the record's root is gone. */
const GONE_ROOT_PID = 4_194_000;
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
  bounds: { start: number; end: number | null; rootStartMs?: number },
  asMember: boolean,
) {
  const record: StoredSession = {
    version: 1,
    id: `claude-code-${sessionId}-${label}`,
    agent: 'claude-code',
    root: { pid: GONE_ROOT_PID, startTime: ticksAt(bounds.rootStartMs ?? bounds.start), args: ['claude'] },
    cwd: null,
    startedAtMs: bounds.start,
    lastSeenAtMs: bounds.end ?? bounds.start,
    endedAtMs: bounds.end,
    members: asMember
      ? [{ pid: carrier.pid, startTime: carrier.startTime, ppid: 1, role: 'other', args: [], via: 'marker' }]
      : [],
    sessionKeys: [`claude-code:session:${sessionId}`],
  };
  writeSession(stateRoot, record);
}

/** The root's recorded start (clock ticks since boot) for a wall-clock moment: a record as a real root leaves it. */
function ticksAt(ms: number): string {
  return String(Math.max(1, Math.round(((ms - bootTime()) * clockTicks()) / 1000)));
}

function observe() {
  const { rules } = loadAgentRules(stateRoot);
  return observeAgentsOnce({ stateRoot, rules, readMarkers: markerReaderFor(rules) });
}

function leakedPids(): number[] {
  return observe().leaks.flatMap((leak) => leak.processes.map((process) => process.entry.pid));
}

describe('a session record names only processes that started within the session', () => {
  it('ignores a planted record whose session ended before its member started (control: ended after)', () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at - 2 * MINUTE_MS, end: at - MINUTE_MS }, true);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - 2 * MINUTE_MS, end: Date.now() }, true);
    expect(leakedPids()).toContain(carrier.pid);
  });

  it("does not judge a resumed run's id carrier against the earlier run's ended record (control: within it)", () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at - 3 * MINUTE_MS, end: at - MINUTE_MS }, false);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - 3 * MINUTE_MS, end: Date.now() }, false);
    expect(leakedPids()).toContain(carrier.pid);
  });

  it('ignores a stale record whose session began after the process did (control: began before)', () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    plant('planted', sessionId, carrier, { start: at + MINUTE_MS, end: at + 2 * MINUTE_MS }, true);
    expect(leakedPids()).not.toContain(carrier.pid);
    plant('control', sessionId, carrier, { start: at - MINUTE_MS, end: Date.now() }, true);
    expect(leakedPids()).toContain(carrier.pid);
  });

  it('reports, and never acts on, a record whose window no real session could have had (control: plausible)', () => {
    const sessionId = randomUUID();
    const carrier = startCarrier(sessionId);
    const at = carrier.startedAtMs;
    // Left open from before this boot, and [0, now]: the window would hold every process here.
    plant('open-from-zero', sessionId, carrier, { start: 0, end: null, rootStartMs: bootTime() }, true);
    plant('zero-to-now', sessionId, carrier, { start: 0, end: Date.now(), rootStartMs: bootTime() }, true);
    // A root that started long before the window claims to, and one that started after the end.
    plant(
      'root-before',
      sessionId,
      carrier,
      { start: at - MINUTE_MS, end: null, rootStartMs: at - 10 * MINUTE_MS },
      true,
    );
    plant(
      'root-after',
      sessionId,
      carrier,
      { start: at - 2 * MINUTE_MS, end: at - MINUTE_MS / 2, rootStartMs: at },
      true,
    );
    plant('ends-in-future', sessionId, carrier, { start: at - MINUTE_MS, end: Date.now() + 10 * MINUTE_MS }, true);
    const observation = observe();
    expect(observation.leaks.flatMap((leak) => leak.processes.map((p) => p.entry.pid))).not.toContain(carrier.pid);
    const messages = observation.problems.map((problem) => problem.message).join('\n');
    expect(messages).toMatch(/open-from-zero: its window starts at 1970-01-01T00:00:00\.000Z, before this boot/);
    expect(messages).toMatch(/zero-to-now: its window starts at .*before this boot/);
    expect(messages).toMatch(/root-before: its root 4194000 started at .*before the window's start/);
    expect(messages).toMatch(/root-after: its root 4194000 started at .*after the session ended/);
    expect(messages).toMatch(/ends-in-future: its window lies in the future/);
    // The same open record with a window that begins at its root's start is acted on.
    plant('open-control', sessionId, carrier, { start: at - MINUTE_MS, end: null }, true);
    expect(leakedPids()).toContain(carrier.pid);
  });
});
