/**
 * The snapshot's sessions from an observer tick, without processes: live first, then ended; the
 * quiet ended ones bounded per snapshot while live and leaking ones always show; members' CPU and
 * memory summed; a dev server's ports on its node; leaks become kind "agent" orphans with evidence.
 */
import type { AgentLeak, ProcessEntry } from '@treewarden/engine';
import type { AgentSessionRow } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import type { AgentScan } from '../src/poll/agent-observer.js';
import { createCpuTracker } from '../src/snapshot/process-node.js';
import { buildAgentViews, MAX_ENDED_SESSIONS_SHOWN } from '../src/snapshot/session-views.js';

function entry(pid: number, ppid: number, rssBytes = 1000): ProcessEntry {
  return {
    pid,
    startTime: `${pid}0`,
    ppid,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid: 1000,
    command: 'node',
    args: ['node', `p${pid}.js`],
    cwd: '/home/ana/proj',
    cpuTimeMs: 0,
    rssBytes,
    startedAtMs: 1,
  };
}

function row(id: number, state: 'live' | 'ended', leaked: number[] = []): AgentSessionRow {
  return {
    id: `claude-code-${id}-${id}0`,
    agent: 'claude-code',
    state,
    root: { pid: id, startTime: `${id}0` },
    cwd: '/home/ana/proj',
    startedAt: new Date(1000 * id).toISOString(),
    endedAt: state === 'ended' ? new Date(2000 * id).toISOString() : null,
    members: [
      { pid: id + 1, startTime: `${id + 1}0`, role: 'mcp-server', args: ['node', 'mcp.js'] },
      { pid: id + 2, startTime: `${id + 2}0`, role: 'dev-server', args: ['node', 'dev.js'] },
    ],
    leaked,
  };
}

function scan(rows: AgentSessionRow[], entries: ProcessEntry[], leaks: AgentLeak[] = []): AgentScan {
  return {
    rows,
    leaks,
    alerts: [],
    entries: new Map(entries.map((e) => [e.pid, e])),
    readAtMs: 5000,
    listening: new Map([['102:1020', [{ proto: 'tcp' as const, address: '127.0.0.1', port: 5173 }]]]),
    problems: [],
  };
}

describe('agent views', () => {
  it('shows a live session with its root first, roles, ports and summed memory', () => {
    const views = buildAgentViews(
      scan([row(100, 'live')], [entry(100, 1, 3000), entry(101, 100), entry(102, 101)]),
      createCpuTracker(),
    );
    const [session] = views.sessions;
    expect(session?.processes.map((node) => [node.pid, node.role])).toEqual([
      [100, 'root'],
      [101, 'mcp-server'],
      [102, 'dev-server'],
    ]);
    expect(session?.processes[2]?.listening).toEqual([{ proto: 'tcp', address: '127.0.0.1', port: 5173 }]);
    expect(session?.rssBytes).toBe(5000);
    expect(views.orphans).toEqual([]);
  });

  it('shows only the leaked members of an ended session, and its leaks as agent orphans', () => {
    const leak: AgentLeak = {
      sessionId: 'claude-code-100-1000',
      agent: 'claude-code',
      root: { pid: 100, startTime: '1000' },
      why: 'claude-code root 100 (start 1000) is gone',
      processes: [{ entry: entry(102, 1), role: 'dev-server', reasons: ['reparented to pid 1'] }],
    };
    const views = buildAgentViews(scan([row(100, 'ended', [102])], [entry(102, 1)], [leak]), createCpuTracker());
    expect(views.sessions[0]?.processes.map((node) => node.pid)).toEqual([102]);
    expect(views.orphans).toEqual([
      expect.objectContaining({
        kind: 'agent',
        agent: 'claude-code',
        sessionId: 'claude-code-100-1000',
        role: 'dev-server',
        reasons: ['claude-code root 100 (start 1000) is gone', 'reparented to pid 1'],
      }),
    ]);
    expect(views.orphans[0]?.markersOnly).toBeUndefined();
  });

  it('bounds quiet ended sessions per snapshot, never live or leaking ones', () => {
    const ended = Array.from({ length: MAX_ENDED_SESSIONS_SHOWN + 5 }, (_, i) => row(1000 + 10 * i, 'ended'));
    const rows = [...ended, row(100, 'live'), row(200, 'ended', [201])];
    const views = buildAgentViews(scan(rows, []), createCpuTracker());
    expect(views.sessions[0]?.state).toBe('live');
    expect(views.sessions.filter((s) => s.state === 'ended' && s.leaked.length === 0)).toHaveLength(
      MAX_ENDED_SESSIONS_SHOWN,
    );
    expect(views.sessions.some((s) => s.leaked.length > 0)).toBe(true);
    // The most recently ended are the ones kept.
    expect(views.sessions.some((s) => s.id === 'claude-code-1000-10000')).toBe(false);
  });
});
