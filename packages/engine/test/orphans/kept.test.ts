/**
 * Descendants a run kept on purpose (`keepDescendants`) leave their lease: over an injected
 * table, neither they nor anything they started are members, whatever cookie, run dir or
 * adoption ties them to the run; a recycled pid of a kept identity is not protected.
 */
import { describe, expect, it } from 'vitest';
import { findRunMembers } from '../../src/membership/run-members.js';
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
    cwd: '/state/runs/r1',
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
    ...extra,
  };
}

function table(...entries: ProcessEntry[]): ProcessTable {
  return { entries: new Map(entries.map((e) => [e.pid, e])), readAtMs: 0 };
}

describe('kept descendants and membership', () => {
  const processes = table(
    entry(1, 0, { cwd: '/' }),
    entry(900, 1, { cwd: '/' }), // the guardian
    entry(60, 900), // kept (adopted by the guardian, cookie, cwd in the run dir)
    entry(61, 60), // started by the kept process later
    entry(62, 61), // and its child
    entry(70, 900), // an ordinary leftover of the same run
    entry(80, 1, { startTime: '1' }), // a kept pid, since recycled by a stranger with the cookie
  );
  const query = {
    anchors: [{ runId: 'r1', leaseId: 'L', runDir: '/state/runs/r1' }],
    adopterPids: new Set([900]),
    excludePids: new Set([900]),
    readCookies: () => ({ runId: 'r1', leaseId: 'L' }),
  };

  it('leaves out every kept identity and its descendants, and nothing else', () => {
    const members = findRunMembers(processes, {
      ...query,
      kept: [
        { pid: 60, startTime: '6000' },
        { pid: 80, startTime: '8000' },
      ],
    });
    expect(members.map((m) => m.entry.pid).sort((a, b) => a - b)).toEqual([70, 80]);
  });

  it('without kept identities the same processes are all members (the test above can fail)', () => {
    const members = findRunMembers(processes, query);
    expect(members.map((m) => m.entry.pid).sort((a, b) => a - b)).toEqual([60, 61, 62, 70, 80]);
  });
});
