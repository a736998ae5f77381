/** Membership over an injected table: each way a process is tied to a run, and what never is. */
import { describe, expect, it } from 'vitest';
import type { RunCookies } from '../../src/membership/cookie.js';
import { findRunMembers, memberRoots } from '../../src/membership/run-members.js';
import type { ProcessEntry, ProcessTable } from '../../src/table/types.js';

function entry(pid: number, ppid: number, extra: Partial<ProcessEntry> = {}): ProcessEntry {
  return {
    pid,
    ppid,
    startTime: `${pid}00`,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid: 0,
    command: 'node',
    args: ['node'],
    cwd: '/elsewhere',
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
    ...extra,
  };
}

function table(...entries: ProcessEntry[]): ProcessTable {
  return { entries: new Map(entries.map((e) => [e.pid, e])), readAtMs: 0 };
}

const cookies =
  (map: Record<number, RunCookies>) =>
  (pid: number): RunCookies | null =>
    map[pid] ?? {};

describe('run membership', () => {
  const processes = table(
    entry(1, 0),
    entry(50, 1, { cwd: '/state/runs/r1/sub' }), // cwd inside the run dir
    entry(51, 50), // descendant of a member, no cookie
    entry(52, 1), // cookie
    entry(53, 1, { state: 'Z' }), // zombie with a cookie: stopped, never a member
    entry(54, 1, { startTime: '999' }), // the recorded root's pid, recycled
    entry(55, 900), // adopted by the guardian
    entry(56, 1), // lease cookie only
    entry(57, 1, { cwd: '/state/runs/r10' }), // a sibling dir sharing the prefix
    entry(900, 1), // the guardian itself
  );
  const matches = findRunMembers(processes, {
    anchors: [{ runId: 'r1', leaseId: 'L', runDir: '/state/runs/r1', root: { pid: 54, startTime: '5400' } }],
    leaseIds: new Set(['L']),
    adopterPids: new Set([900]),
    excludePids: new Set([900]),
    readCookies: cookies({ 52: { runId: 'r1' }, 53: { runId: 'r1' }, 56: { leaseId: 'L' } }),
  });
  const byPid = new Map(matches.map((m) => [m.entry.pid, m]));

  it('ties processes by cwd, cookie, lease cookie, adoption and ancestry, saying why', () => {
    expect([...byPid.keys()].sort((a, b) => a - b)).toEqual([50, 51, 52, 55, 56]);
    expect(byPid.get(50)?.reasons).toEqual(['cwd /state/runs/r1/sub inside run dir']);
    expect(byPid.get(51)).toMatchObject({ runId: 'r1', reasons: ['descendant of 50'] });
    expect(byPid.get(52)?.reasons).toEqual(['cookie TREEWARDEN_RUN_ID=r1']);
    expect(byPid.get(55)?.reasons[0]).toMatch(/child of guardian 900/);
    expect(byPid.get(56)).toMatchObject({ leaseId: 'L', reasons: ['cookie TREEWARDEN_LEASE_ID=L'] });
  });

  it('never counts a zombie, a recycled pid, a look-alike dir or an excluded process', () => {
    for (const pid of [53, 54, 57, 900]) expect(byPid.has(pid)).toBe(false);
  });

  it('hands only the top of each member tree to the kill', () => {
    expect(
      memberRoots(matches)
        .map((m) => m.entry.pid)
        .sort((a, b) => a - b),
    ).toEqual([50, 52, 55, 56]);
  });

  it("ties a process in a dead holder's session only if it started after the holder", () => {
    const sessions = table(entry(70, 1, { sid: 60, startTime: '500' }), entry(71, 1, { sid: 60, startTime: '100' }));
    const found = findRunMembers(sessions, {
      anchors: [],
      deadSessions: new Map([[60, { leaseId: 'L', holder: { pid: 60, startTime: '200' } }]]),
      readCookies: () => null,
    });
    expect(found.map((m) => [m.entry.pid, m.leaseId, m.reasons])).toEqual([
      [70, 'L', ['in the session of dead lease holder 60']],
    ]);
  });

  it('matches the recorded root identity when it is still the same process', () => {
    const [root] = findRunMembers(table(entry(54, 1)), {
      anchors: [{ runId: 'r1', root: { pid: 54, startTime: '5400' } }],
      readCookies: () => null,
    });
    expect(root?.reasons).toEqual(['recorded identity of the run root']);
  });
});
