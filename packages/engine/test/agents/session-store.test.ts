/** The remembered sessions: atomic records, validated on read (a torn or forged file is reported and skipped), bounded. */
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMarkerVars } from '../../src/agents/read/environ.js';
import {
  ENDED_SESSION_RETENTION_MS,
  MAX_STORED_SESSIONS,
  pruneSessions,
  readSessions,
  sessionsDir,
  writeSession,
} from '../../src/agents/sessions/session-store.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { makeTempDir } from '../helpers/index.js';

function record(id: string, startedAtMs: number, endedAtMs: number | null = null): StoredSession {
  return {
    version: 1,
    id,
    agent: 'claude-code',
    root: { pid: 100, startTime: '5', args: ['claude'] },
    cwd: '/w',
    startedAtMs,
    lastSeenAtMs: startedAtMs,
    endedAtMs,
    members: [{ pid: 101, startTime: '6', ppid: 100, role: 'shell', args: ['sh', '-c', 'x'], via: 'descendant' }],
    sessionKeys: [],
  };
}

describe('session store', () => {
  it('round-trips a record and leaves no temp file behind', () => {
    const root = makeTempDir();
    writeSession(root, record('claude-code-100-5', 1));
    expect(readSessions(root)).toEqual({ sessions: [record('claude-code-100-5', 1)], problems: [] });
    expect(readdirSync(sessionsDir(root))).toEqual(['claude-code-100-5.json']);
  });

  it('never loses what another observer wrote since its own read: members are merged, the end kept', () => {
    const root = makeTempDir();
    const id = 'claude-code-100-5';
    const seen = record(id, 1);
    // Observer A learns of a subagent and writes; observer B, from its older view, then sees the root die.
    const subagent = {
      pid: 102,
      startTime: '7',
      ppid: 101,
      role: 'subagent' as const,
      args: ['node'],
      via: 'descendant' as const,
    };
    writeSession(root, { ...seen, members: [...seen.members, subagent], lastSeenAtMs: 2 });
    const written = writeSession(root, { ...seen, endedAtMs: 3, lastSeenAtMs: 3 });
    const [stored] = readSessions(root).sessions;
    expect(stored).toEqual(written);
    expect(stored?.members.map((member) => member.pid).sort()).toEqual([101, 102]);
    expect(stored?.endedAtMs).toBe(3);
    // A later live view from A does not un-end the session, and a role told apart is kept over `other`.
    writeSession(root, { ...seen, members: [{ ...subagent, role: 'other' }], lastSeenAtMs: 4 });
    const [after] = readSessions(root).sessions;
    expect(after?.endedAtMs).toBe(3);
    expect(after?.lastSeenAtMs).toBe(4);
    expect(after?.members.find((member) => member.pid === 102)?.role).toBe('subagent');
    // Another root identity under the same id (a reused pid with the same start is impossible; a forged one) is replaced.
    const other = { ...record(id, 9), root: { pid: 100, startTime: '8', args: ['claude'] } };
    expect(writeSession(root, other)).toEqual(other);
  });

  it('reports a torn record and a forged one (bad pid) and still reads the good one', () => {
    const root = makeTempDir();
    writeSession(root, record('good', 1));
    writeFileSync(join(sessionsDir(root), 'torn.json'), JSON.stringify(record('torn', 2)).slice(0, 40), {
      mode: 0o600,
    });
    writeFileSync(
      join(sessionsDir(root), 'forged.json'),
      JSON.stringify({ ...record('forged', 3), root: { pid: -1, startTime: '1', args: [] } }),
      { mode: 0o600 },
    );
    const read = readSessions(root);
    expect(read.sessions.map((s) => s.id)).toEqual(['good']);
    expect(read.problems.map((p) => p.file.split('/').pop()).sort()).toEqual(['forged.json', 'torn.json']);
    expect(read.problems.find((p) => p.file.endsWith('forged.json'))?.message).toMatch(/root\.pid/);
  });

  it('skips a record others could have written, and refuses a store directory others can enter', () => {
    const root = makeTempDir();
    writeSession(root, record('good', 1));
    writeFileSync(join(sessionsDir(root), 'planted.json'), JSON.stringify(record('planted', 2)), { mode: 0o666 });
    chmodSync(join(sessionsDir(root), 'planted.json'), 0o666);
    const read = readSessions(root);
    expect(read.sessions.map((s) => s.id)).toEqual(['good']);
    expect(read.problems[0]?.message).toMatch(/lets other users in/);
    chmodSync(sessionsDir(root), 0o777);
    expect(() => readSessions(root)).toThrow(/refusing the Treewarden state path .*agent-sessions/);
  });

  it('refuses an id that is not a safe file name', () => {
    expect(() => writeSession(makeTempDir(), record('../escape', 1))).toThrow();
  });

  it('forgets ended sessions past retention unless still leaking, and caps the count (oldest ended first)', () => {
    const root = makeTempDir();
    const now = ENDED_SESSION_RETENTION_MS * 2;
    const old = record('old', 0, 1);
    const oldLeaking = record('old-leaking', 0, 1);
    const sessions = [
      old,
      oldLeaking,
      ...Array.from({ length: MAX_STORED_SESSIONS }, (_, i) => record(`s${i}`, 10 + i, i === 0 ? now : null)),
    ];
    for (const session of sessions) writeSession(root, session);
    const kept = pruneSessions(root, sessions, now, (session) => session.id === 'old-leaking');
    expect(kept.map((s) => s.id)).not.toContain('old');
    expect(kept).toHaveLength(MAX_STORED_SESSIONS);
    // Over the cap by one: the oldest ended session goes first (old-leaking), live ones stay.
    expect(kept.map((s) => s.id)).not.toContain('old-leaking');
    expect(readSessions(root).sessions).toHaveLength(MAX_STORED_SESSIONS);
  });

  it('picks only the named marker variables out of an environ block', () => {
    const environ = Buffer.from('PATH=/bin\0CLAUDECODE=1\0SECRET=x\0CODEX_THREAD_ID=a=b\0\0', 'utf8');
    expect([...parseMarkerVars(environ, new Set(['CLAUDECODE', 'CODEX_THREAD_ID']))]).toEqual([
      ['CLAUDECODE', '1'],
      ['CODEX_THREAD_ID', 'a=b'],
    ]);
  });

  it('reopens a hook-recorded session on resume, and an older view never undoes the reopening', () => {
    const root = makeTempDir();
    const hook = (openedAtMs: number) => ({ sessionId: 'abc', envKey: 'CLAUDE_CODE_SESSION_ID', openedAtMs });
    const first = { ...record('claude-code-abc', 1, 3), hook: hook(1) };
    writeSession(root, first);
    // Resumed in the same process: the end before the new SessionStart no longer counts.
    const reopened = writeSession(root, { ...record('claude-code-abc', 1), hook: hook(5), lastSeenAtMs: 5 });
    expect(reopened.endedAtMs).toBeNull();
    // Resumed in a new process: the new root wins over an observer's older view of the old one.
    const moved = {
      ...record('claude-code-abc', 1),
      root: { pid: 200, startTime: '9', args: ['claude'] },
      hook: hook(7),
    };
    writeSession(root, moved);
    const stale = writeSession(root, { ...first, lastSeenAtMs: 8 });
    expect(stale.root.pid).toBe(200);
    expect(stale.endedAtMs).toBeNull();
  });
});
