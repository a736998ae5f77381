/**
 * Hook-recorded sessions in the observer: a live session whose root a hook recorded keeps the
 * hook's id (one record, not two), and a reaper's report written by another process becomes one
 * `session-cleaned` event of the watcher (none for reports already there when it started).
 */
import { describe, expect, it } from 'vitest';
import { HOOK_AGENTS } from '../../src/agents/hooks/hook-agents.js';
import { closeHookRecord, openHookRecord } from '../../src/agents/hooks/hook-record.js';
import { adoptHookIds, markerReaderFor } from '../../src/agents/observe/observe.js';
import { createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import type { LiveSession } from '../../src/agents/sessions/recognise.js';
import { readSessions } from '../../src/agents/sessions/session-store.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { makeTempDir } from '../helpers/index.js';

function self(): ProcessEntry {
  const entry = readProcEntry(process.pid);
  if (entry === null) throw new Error('cannot read this process');
  return entry;
}

function start(stateRoot: string, sessionId: string, now: number) {
  return openHookRecord(stateRoot, { agent: HOOK_AGENTS.claude, sessionId, root: self(), cwd: '/w', now });
}

describe('hook-recorded sessions', () => {
  it('gives a recognised live session the id of the hook record with its root', () => {
    const stateRoot = makeTempDir();
    const record = start(stateRoot, 'sess-1', Date.now());
    const live: LiveSession = {
      id: 'claude-code-1-2',
      agent: 'claude-code',
      root: self(),
      members: [],
      sessionKeys: [],
    };
    const stranger: LiveSession = { ...live, id: 'claude-code-9-9', root: { ...self(), pid: 9, startTime: '9' } };
    expect(adoptHookIds([live, stranger], [record]).map((session) => session.id)).toEqual([record.id, stranger.id]);
    // An ended hook record names no live session.
    const ended = closeHookRecord(stateRoot, record, Date.now(), { atMs: 1, ended: [], survivors: [], note: 'x' });
    expect(adoptHookIds([live], [ended])[0]?.id).toBe(live.id);
  });

  it("emits session-cleaned once for a reaper's report written after the watcher started", () => {
    const stateRoot = makeTempDir();
    const { rules } = loadAgentRules(stateRoot);
    const old = start(stateRoot, 'sess-old', Date.now());
    closeHookRecord(stateRoot, old, Date.now(), { atMs: Date.now(), ended: [], survivors: [], note: 'before' });
    const watcher = createAgentWatcher({
      stateRoot,
      rules,
      readMarkers: markerReaderFor(rules),
      fullScanIntervalMs: 0,
    });
    expect(watcher.tick().events.filter((event) => event.type === 'session-cleaned')).toEqual([]);
    const record = start(stateRoot, 'sess-new', Date.now());
    const cleanup = { atMs: Date.now() + 1, ended: [{ pid: 4242, startTime: '7' }], survivors: [], note: 'ended 1' };
    closeHookRecord(stateRoot, record, Date.now(), cleanup);
    const events = watcher.tick().events.filter((event) => event.type === 'session-cleaned');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ session: { id: record.id }, cleanup });
    expect(watcher.tick().events.filter((event) => event.type === 'session-cleaned')).toEqual([]);
    expect(readSessions(stateRoot).sessions.find((s) => s.id === record.id)?.hook?.cleanup).toEqual(cleanup);
  });
});
