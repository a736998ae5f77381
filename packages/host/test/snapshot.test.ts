/** The pure parts of snapshots: membership by identity, CPU from deltas, system diffs. */
import type { ProcessEntry } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
import { createMembership } from '../src/snapshot/membership.js';
import { createCpuTracker, toProcessNode } from '../src/snapshot/process-node.js';
import { applySystemDiff, diffSystem, nodeKey } from '../src/snapshot/system-diff.js';

function entry(pid: number, ppid: number, extra: Partial<ProcessEntry> = {}): ProcessEntry {
  return {
    pid,
    startTime: String(1000 + pid),
    ppid,
    pgid: 10,
    sid: 10,
    state: 'S',
    uid: 0,
    command: 'node',
    args: ['node', `w${pid}`],
    cwd: '/tmp',
    cpuTimeMs: 0,
    rssBytes: 4096,
    startedAtMs: 1,
    ...extra,
  };
}

function table(...entries: ProcessEntry[]): Map<number, ProcessEntry> {
  return new Map(entries.map((e) => [e.pid, e]));
}

describe('run membership', () => {
  const root = entry(10, 1);

  it('admits descendants, keeps them after their parent exits, marks escapes', () => {
    const membership = createMembership(() => root);
    membership.update(table(root, entry(11, 10), entry(12, 11, { pgid: 12, sid: 12 }), entry(99, 1)));
    expect(membership.pids().sort()).toEqual([10, 11, 12]);
    // 11 exits; 12 is reparented to 1 but stays a member.
    membership.update(table(root, entry(12, 1, { pgid: 12, sid: 12 }), entry(99, 1)));
    expect(membership.pids().sort()).toEqual([10, 12]);
    const escaped = membership.entries().find((e) => e.pid === 12) as ProcessEntry;
    expect(membership.isEscaped(escaped)).toBe(true);
    expect(membership.isEscaped(root)).toBe(false);
  });

  it('never admits the children of a recycled pid', () => {
    const membership = createMembership(() => root);
    membership.update(table(root, entry(11, 10)));
    // Pid 11 now belongs to another process (new start time) with a child of its own.
    membership.update(table(root, entry(11, 1, { startTime: '9999' }), entry(13, 11)));
    expect(membership.pids()).toEqual([10]);
    expect(membership.isMember({ pid: 11, startTime: '9999' })).toBe(false);
  });

  it('says why each member belongs, and keeps the evidence and escape kind once decided', () => {
    const membership = createMembership(() => root);
    membership.update(table(root, entry(11, 10), entry(12, 11, { pgid: 12, sid: 12 }), entry(13, 11, { pgid: 13 })));
    const of = (pid: number) => membership.entries().find((e) => e.pid === pid) as ProcessEntry;
    expect(membership.evidenceOf(of(10))[0]).toContain("the run's root");
    expect(membership.evidenceOf(of(12))).toEqual([
      'child of pid 11 (node), a member with the same identity when first seen',
    ]);
    expect(membership.escapeOf(of(12))).toBe('session');
    expect(membership.escapeOf(of(13))).toBe('group');
    expect(membership.escapeOf(of(11))).toBeNull();
    // 11 exits and 12 is reparented: the admission stays, and the reparenting is said.
    membership.update(table(root, entry(12, 1, { pgid: 12, sid: 12 })));
    expect(membership.evidenceOf(of(12))).toEqual([
      'child of pid 11 (node), a member with the same identity when first seen',
      'its parent exited; reparented to pid 1, still a member by identity',
    ]);
    expect(membership.escapeOf(of(12))).toBe('session');
    // A stranger is never described as a member.
    expect(membership.evidenceOf(entry(99, 1))).toEqual([]);
  });

  it('waits for a root identity that arrives later', () => {
    let known: { pid: number; startTime: string } | null = null;
    const membership = createMembership(() => known);
    membership.update(table(root));
    expect(membership.pids()).toEqual([]);
    known = root;
    membership.update(table(root));
    expect(membership.pids()).toEqual([10]);
  });
});

describe('CPU percent', () => {
  it('is CPU time used over wall time since the previous read, unknown (absent) on first sight', () => {
    const cpu = createCpuTracker();
    expect(cpu.sample(table(entry(5, 1, { cpuTimeMs: 100 })), 1000).has('5:1005')).toBe(false);
    expect(cpu.sample(table(entry(5, 1, { cpuTimeMs: 600 })), 2000).get('5:1005')).toBe(50);
    // A recycled pid is a new identity: no delta against the old one, so unknown again.
    expect(cpu.sample(table(entry(5, 1, { cpuTimeMs: 5000, startTime: '7' })), 3000).has('5:7')).toBe(false);
    expect(cpu.sample(table(entry(5, 1, { cpuTimeMs: 5000, startTime: '7' })), 4000).get('5:7')).toBe(0);
  });
});

describe('system diff', () => {
  const nodes = (...entries: ProcessEntry[]) => new Map(entries.map((e) => [nodeKey(e), toProcessNode(e, 0, false)]));

  it('is full first, then carries only changes, and adds up to the new table', () => {
    const first = nodes(entry(1, 0), entry(2, 1), entry(3, 1));
    const full = diffSystem(null, first);
    expect(full.full).toBe(true);
    const second = nodes(entry(1, 0), entry(2, 1, { state: 'R' }), entry(4, 1));
    const diff = diffSystem(first, second);
    expect(diff.full).toBe(false);
    expect(diff.upserts.map((n) => n.pid).sort()).toEqual([2, 4]);
    expect(diff.removed).toEqual(['3:1003']);
    expect(applySystemDiff(applySystemDiff(new Map(), full), diff)).toEqual(second);
  });
});
