/**
 * Recognition and leak judgement over injected tables: what counts as a session and its roles, who
 * is leaked and why, and the classes of process that are never reported whatever their markers.
 */
import { describe, expect, it } from 'vitest';
import { findAgentLeaks } from '../../src/agents/leaks/find-leaks.js';
import type { MarkerReader } from '../../src/agents/read/environ.js';
import { roleOf } from '../../src/agents/rules/match.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { collectMarkers, recogniseSessions } from '../../src/agents/sessions/recognise.js';
import { rememberObserved } from '../../src/agents/sessions/remember.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import type { ProcessTable } from '../../src/table/types.js';
import { type FakeProcess, fakeTable, makeTempDir } from '../helpers/index.js';

const { rules } = loadAgentRules(makeTempDir());
const ME = typeof process.getuid === 'function' ? process.getuid() : 501;
const CLAUDE = ['node', '/u/lib/node_modules/@anthropic-ai/claude-code/cli.js'];
/** A tty_nr of /dev/pts/0: the setsid'd dev server (106) has none. */
const TTY = 34816;
const MARKED = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-a' };

function markerReader(env: Record<number, Record<string, string>>): MarkerReader {
  return (identity) => new Map(Object.entries(env[identity.pid] ?? {}));
}

/** Members start after their root (1000) and before the judged moment (5000): startedWithinSession. */
const MEMBER_START = 1500;
/** A Claude session: root 100; sh -c 101 → npx 102 → server 103; subagent 104; setsid'd shell 105 → dev 106. */
const SESSION: FakeProcess[] = [
  { pid: 100, ppid: 50, pgid: 100, args: CLAUDE, startedAtMs: 1000 },
  ...[
    { pid: 101, ppid: 100, pgid: 100, args: ['sh', '-c', 'npx server-mcp'] },
    { pid: 102, ppid: 101, pgid: 100, args: ['node', '/usr/bin/npx', '@x/server-mcp'] },
    { pid: 103, ppid: 102, pgid: 100, args: ['node', '/cache/@x/server-mcp/index.js'] },
    { pid: 104, ppid: 100, pgid: 100, args: [...CLAUDE, '--output-format', 'stream-json', '--resume', 'r'] },
    { pid: 105, ppid: 100, pgid: 105, sid: 105, args: ['bash', '-c', 'npm run dev & wait'] },
    { pid: 106, ppid: 105, pgid: 105, sid: 105, args: ['node', 'vite'] },
  ].map((member) => ({ ...member, startedAtMs: MEMBER_START })),
];
const SESSION_ENV = Object.fromEntries([101, 102, 103, 104, 105, 106].map((pid) => [pid, MARKED]));

function judge(
  table: ProcessTable,
  env: Record<number, Record<string, string>>,
  remembered: StoredSession[],
  now = 5000,
) {
  const input = { table, rules, readMarkers: markerReader(env), uid: ME, listeningPids: new Set([106]) };
  const markers = collectMarkers(input);
  const live = recogniseSessions(input, markers);
  const memory = rememberObserved(remembered, live, table, now);
  const leaks = findAgentLeaks({
    table,
    live,
    remembered: memory.sessions,
    markers,
    exclude: new Set([process.pid]),
    uid: ME,
    now,
    ttyOf: (pid: number) => (pid === 106 ? 0 : TTY),
  });
  return { live, memory, leaks };
}

/** The same processes after the root died: the kernel reparents its children to pid 1. */
function afterRootDied(processes: FakeProcess[]): FakeProcess[] {
  return processes.filter((p) => p.pid !== 100).map((p) => (p.ppid === 100 ? { ...p, ppid: 1 } : p));
}

describe('agent sessions over injected tables', () => {
  it('recognises the root and gives every member its role (the subagent is no session of its own)', () => {
    const { live } = judge(fakeTable(SESSION), SESSION_ENV, []);
    expect(live).toHaveLength(1);
    const roles = Object.fromEntries(live[0]?.members.map((m) => [m.entry.pid, m.role]) ?? []);
    expect(roles).toEqual({
      101: 'shell',
      102: 'mcp-server',
      103: 'mcp-server',
      104: 'subagent',
      105: 'shell',
      106: 'dev-server',
    });
    expect(live[0]?.sessionKeys).toContain('claude-code:session:sess-a');
  });

  it('after the root dies, reports every remembered survivor with the dead root in its reasons', () => {
    const first = judge(fakeTable(SESSION), SESSION_ENV, []);
    const { leaks, memory } = judge(fakeTable(afterRootDied(SESSION)), SESSION_ENV, first.memory.sessions);
    expect(memory.ended.map((s) => s.id)).toEqual([first.live[0]?.id]);
    expect(leaks).toHaveLength(1);
    expect(leaks[0]?.processes.map((p) => p.entry.pid).sort()).toEqual([101, 102, 103, 104, 105, 106]);
    const sh = leaks[0]?.processes.find((p) => p.entry.pid === 101);
    expect(sh?.reasons[0]).toMatch(
      /remembered as shell of session claude-code-100-st-100; claude-code root 100 \(start st-100\) is gone/,
    );
    expect(sh?.reasons).toContain('reparented to pid 1');
    expect(sh?.reasons).toContain('its process group leader 100 is gone');
    expect(sh?.reasons).not.toContain('no controlling terminal');
    expect(leaks[0]?.processes.find((p) => p.entry.pid === 106)?.reasons).toContain('no controlling terminal');
  });

  it("remembers marker-less members by ancestry (Codex clears its MCP servers' environment)", () => {
    const codex: FakeProcess[] = [
      {
        pid: 200,
        ppid: 50,
        pgid: 200,
        args: ['node', '/u/node_modules/@openai/codex/bin/codex.js'],
        startedAtMs: 1000,
      },
      { pid: 201, ppid: 200, pgid: 201, sid: 201, args: ['node', 'server.js'], startedAtMs: MEMBER_START },
    ];
    const first = judge(fakeTable(codex), {}, []);
    const { leaks } = judge(fakeTable([{ ...(codex[1] as FakeProcess), ppid: 1 }]), {}, first.memory.sessions);
    expect(leaks[0]?.processes.map((p) => p.entry.pid)).toEqual([201]);
    // Never observed: no evidence, no report.
    expect(judge(fakeTable([{ ...(codex[1] as FakeProcess), ppid: 1 }]), {}, []).leaks).toEqual([]);
  });

  it('finds a tree that leaked before any observer ran from markers alone', () => {
    const { leaks } = judge(fakeTable(afterRootDied(SESSION)), SESSION_ENV, []);
    const pids = leaks.flatMap((leak) => leak.processes.map((p) => p.entry.pid)).sort();
    expect(pids).toEqual([101, 102, 103, 104, 105, 106]);
    expect(leaks.every((leak) => leak.root === null && leak.sessionId.startsWith('claude-code-orphan-'))).toBe(true);
    expect(leaks[0]?.processes[0]?.reasons[0]).toMatch(/CLAUDECODE=1/);
  });

  it("never reports pid 1, systemd, another user's process, the caller's own tree or a live session's member", () => {
    const strangers: FakeProcess[] = [
      { pid: 1, ppid: 0, pgid: 1, command: 'systemd', args: ['/sbin/init'] },
      { pid: 300, ppid: 1, pgid: 300, command: 'systemd', args: ['/lib/systemd/systemd', '--user'] },
      { pid: 301, ppid: 1, pgid: 301, uid: ME + 1, args: ['node', 'their-mcp'] },
      { pid: process.pid, ppid: 1, pgid: process.pid, args: ['node', 'treewarden'] },
      { pid: 302, ppid: 1, pgid: 302, args: ['node', 'no-markers'] },
    ];
    const env = { 1: MARKED, 300: MARKED, 301: MARKED, [process.pid]: MARKED };
    // A live session whose reparented member names it by marker stays the live session's.
    const liveMember: FakeProcess = { pid: 107, ppid: 1, pgid: 107, args: ['node', 'daemon'] };
    const { leaks, live } = judge(
      fakeTable([...SESSION, ...strangers, liveMember]),
      { ...SESSION_ENV, ...env, 107: MARKED },
      [],
    );
    expect(leaks).toEqual([]);
    expect(live[0]?.members.find((m) => m.entry.pid === 107)?.via).toBe('marker');
  });

  it('does not report a marked orphan naming no session while an older session of its agent is live', () => {
    const orphan: FakeProcess = { pid: 400, ppid: 1, pgid: 400, args: ['node', 'daemon'], startedAtMs: 2000 };
    const { leaks } = judge(fakeTable([...SESSION, orphan]), { ...SESSION_ENV, 400: { CLAUDECODE: '1' } }, []);
    expect(leaks).toEqual([]);
    const alone = judge(fakeTable([orphan]), { 400: { CLAUDECODE: '1' } }, []);
    expect(alone.leaks.map((leak) => leak.processes.map((p) => p.entry.pid))).toEqual([[400]]);
  });

  it('does not report a marked orphan naming a session no observer knows while an older session of its agent is live', () => {
    // The live session was seen before its MCP server started; the server's wrapper then died (the
    // agent closing it on its way out) before any tick saw it as the root's descendant. Its session
    // id is the live session's own, which recognition could not know: not a leak while that lives.
    const rootOnly = SESSION.filter((p) => p.pid === 100);
    const server: FakeProcess = { pid: 103, ppid: 1, pgid: 100, args: ['node', '/cache/@x/server-mcp/index.js'] };
    const env = { 103: { ...MARKED, CLAUDE_CODE_SESSION_ID: 'sess-new' } };
    const first = judge(fakeTable(rootOnly), {}, []);
    expect(first.live).toHaveLength(1);
    const { leaks } = judge(
      fakeTable([...rootOnly, { ...server, startedAtMs: MEMBER_START }]),
      env,
      first.memory.sessions,
    );
    expect(leaks).toEqual([]);
    // Once the root is gone, it is reported (from markers: no record holds it).
    const after = judge(fakeTable([{ ...server, startedAtMs: MEMBER_START }]), env, first.memory.sessions);
    expect(after.leaks.map((leak) => leak.processes.map((p) => p.entry.pid))).toEqual([[103]]);
    // An orphan naming a session that a record knows keeps that judgement: the live session is not its.
    const known = judge(fakeTable([...rootOnly, { ...server, startedAtMs: MEMBER_START }]), env, [
      ...first.memory.sessions,
      {
        ...(first.memory.sessions[0] as StoredSession),
        id: 'ended',
        root: { pid: 90, startTime: '90', args: CLAUDE },
        endedAtMs: 4000,
        sessionKeys: ['claude-code:session:sess-new'],
      },
    ]);
    expect(known.leaks.map((leak) => [leak.sessionId, leak.processes.map((p) => p.entry.pid)])).toEqual([
      ['ended', [103]],
    ]);
    // Beside a live session that knows its own id (sess-a, from its members), an orphan naming an
    // unknown one is another session's leak (one that crashed before any observer ran).
    const stranger: FakeProcess = { ...server, pid: 400, pgid: 400, startedAtMs: 2000 };
    const beside = judge(fakeTable([...SESSION, stranger]), { ...SESSION_ENV, 400: env[103] }, []);
    expect(beside.leaks.map((leak) => leak.processes.map((p) => p.entry.pid))).toEqual([[400]]);
  });

  it('does not take a recycled pid for a remembered member', () => {
    const first = judge(fakeTable(SESSION), SESSION_ENV, []);
    // Pid 103 now belongs to an unrelated, unmarked process elsewhere in the tree.
    const recycled = afterRootDied(SESSION).map((p) => (p.pid === 103 ? { ...p, ppid: 1, startTime: 'other' } : p));
    const env = { ...SESSION_ENV, 103: {} };
    const { leaks } = judge(fakeTable(recycled), env, first.memory.sessions);
    const pids = leaks.flatMap((leak) => leak.processes.map((p) => p.entry.pid));
    expect(pids).not.toContain(103);
    expect(pids).toContain(102);
  });
});

describe('roles by argv', () => {
  it("tells a browser MCP server's headless Chrome from a plain Chrome, and npm exec wrappers from other node processes", () => {
    const processes: FakeProcess[] = [
      { pid: 100, ppid: 50, pgid: 100, args: CLAUDE },
      { pid: 110, ppid: 100, pgid: 100, args: ['npm', 'exec', '@playwright/mcp@latest'] },
      {
        pid: 111,
        ppid: 110,
        pgid: 100,
        args: ['/opt/google/chrome/chrome', '--user-data-dir=/tmp/mcp-chrome-abc', '--headless'],
      },
      {
        pid: 112,
        ppid: 100,
        pgid: 100,
        args: ['/usr/lib/chromium/chromium', '--user-data-dir=/home/u/.config/chromium'],
      },
      { pid: 113, ppid: 100, pgid: 100, args: ['uvx', 'some-server'] },
      { pid: 114, ppid: 100, pgid: 100, args: ['node', 'build.js'] },
    ];
    const { live } = judge(fakeTable(processes), {}, []);
    const roles = Object.fromEntries(live[0]?.members.map((m) => [m.entry.pid, m.role]) ?? []);
    expect(roles).toEqual({ 110: 'mcp-server', 111: 'browser', 112: 'other', 113: 'mcp-server', 114: 'other' });
  });
});

describe('newcomers in a leaked tree', () => {
  it("calls a leaked browser's new renderer a browser, even when a path in its argv says mcp", () => {
    const profile = '--user-data-dir=/tmp/scenario-browser-left-by-mcp-1';
    const chromium = (...args: string[]) => ['/usr/lib/chromium/chromium', ...args, profile];
    const before: FakeProcess[] = [
      { pid: 100, ppid: 50, pgid: 100, args: CLAUDE, startedAtMs: 1000 },
      { pid: 111, ppid: 100, pgid: 100, args: chromium('--headless'), startedAtMs: MEMBER_START },
    ];
    const env = { 111: MARKED };
    const first = judge(fakeTable(before), env, []);
    // Born after the root died, to the orphaned browser: never a remembered member, unmarked.
    const renderer = { pid: 115, ppid: 111, pgid: 100, args: chromium('--type=renderer'), startedAtMs: 4000 };
    const after = fakeTable([...afterRootDied(before), renderer]);
    const input = { table: after, rules, readMarkers: markerReader(env), uid: ME };
    const markers = collectMarkers(input);
    const memory = rememberObserved(first.memory.sessions, recogniseSessions(input, markers), after, 5000);
    const leaks = findAgentLeaks({
      table: after,
      live: [],
      remembered: memory.sessions,
      markers,
      exclude: new Set([process.pid]),
      uid: ME,
      now: 5000,
      roleOfArgv: (entry) => roleOf(entry, rules, { subagent: false, listening: false }),
    });
    const roles = Object.fromEntries(leaks.flatMap((leak) => leak.processes.map((p) => [p.entry.pid, p.role])));
    expect(roles).toEqual({ 111: 'browser', 115: 'browser' });
    expect(leaks[0]?.processes.find((p) => p.entry.pid === 115)?.reasons[0]).toBe('descendant of leaked 111');
  });
});

describe('adopters', () => {
  it('treats a systemd --user as an adopter: a marked tree reparented to it leaks, with that reason', () => {
    const processes: FakeProcess[] = [
      { pid: 300, ppid: 1, pgid: 300, command: 'systemd', args: ['/lib/systemd/systemd', '--user'] },
      { pid: 310, ppid: 300, pgid: 310, args: ['node', 'server-mcp.js'] },
      { pid: 311, ppid: 310, pgid: 310, args: ['node', 'worker.js'] },
    ];
    const { leaks } = judge(fakeTable(processes), { 310: MARKED, 311: MARKED }, []);
    expect(leaks.map((leak) => leak.processes.map((p) => p.entry.pid))).toEqual([[310, 311]]);
    expect(leaks[0]?.processes[0]?.reasons).toContain('reparented to subreaper 300 (systemd)');
    expect(leaks[0]?.processes[1]?.reasons[0]).toBe('descendant of leaked 310');
  });

  it('does not report a marked process whose live, unmarked parent still holds it', () => {
    const processes: FakeProcess[] = [
      { pid: 320, ppid: 1, pgid: 320, args: ['tmux', 'new-session'] },
      { pid: 321, ppid: 320, pgid: 321, args: ['bash'] },
    ];
    expect(judge(fakeTable(processes), { 321: MARKED }, []).leaks).toEqual([]);
  });
});
