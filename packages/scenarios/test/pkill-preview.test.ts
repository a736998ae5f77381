/**
 * The pkill -f preview is pure: it matches the whole command line (the bare name when argv is
 * empty), skips zombies, counts a recycled pid as someone else's, and sorts matches into innocents
 * hit, leaked hit and leaked missed. An injected table: the exact shapes are what matter here.
 */
import type { ProcessEntry, ProcessTable } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
import { type CastMember, previewPkill } from '../src/agents/pkill-preview.js';

function entry(pid: number, args: string[], extra: Partial<ProcessEntry> = {}): ProcessEntry {
  return {
    pid,
    startTime: String(pid * 10),
    ppid: 1,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid: 1000,
    command: extra.command ?? (args[0] ?? '').split('/').pop() ?? '',
    args,
    cwd: null,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
    ...extra,
  };
}

const TABLE: ProcessTable = {
  readAtMs: 0,
  entries: new Map(
    [
      entry(10, ['node', '/x/fake-mcp-server.mjs']),
      entry(11, ['node', '/x/fake-dev-server.mjs']),
      entry(20, ['node', '/x/npx', '/x/fake-mcp-server.mjs']),
      entry(30, ['node', 'run-forever.mjs', 'unrelated', '--name', 'my-mcp-inspector']),
      entry(40, [], { command: 'mcp-kthread' }),
      entry(50, ['node', 'mcp-zombie.mjs'], { state: 'Z' }),
      entry(60, ['node', 'recycled-mcp.mjs'], { startTime: 'other' }),
      entry(70, ['sh', '-c', 'node /x/fake-dev-server.mjs & wait']),
    ].map((e) => [e.pid, e]),
  ),
};

const CAST: CastMember[] = [
  { pid: 10, startTime: '100', role: 'leaked', command: '' },
  { pid: 11, startTime: '110', role: 'leaked', command: '' },
  { pid: 20, startTime: '200', role: 'live-session-member', command: '' },
  { pid: 30, startTime: '300', role: 'unrelated', command: '' },
  { pid: 60, startTime: '600', role: 'leaked', command: '' },
];

describe('previewPkill', () => {
  it('names the innocents it would hit and the leaked members it would miss', () => {
    const preview = previewPkill('mcp', TABLE, CAST, new Set());
    expect(preview.command).toBe('pkill -f mcp');
    expect(preview.innocents.map((member) => member.pid)).toEqual([20, 30]);
    expect(preview.leakedHit).toEqual([10]);
    expect(preview.leakedMissed).toEqual([11, 60]);
    // The kernel thread (matched by name) and the recycled pid 60 are someone else's; the zombie is skipped.
    expect(preview.outsideHits).toBe(2);
  });

  it("does not count the scenario's own other processes as outside, and quotes a pattern with spaces", () => {
    const preview = previewPkill('fake-dev', TABLE, CAST, new Set([70]));
    expect(preview.command).toBe('pkill -f fake-dev');
    expect(preview.leakedHit).toEqual([11]);
    expect(preview.outsideHits).toBe(0);
    expect(previewPkill('fake-dev', TABLE, CAST, new Set()).outsideHits).toBe(1);
    expect(previewPkill('npx /x', TABLE, CAST, new Set()).command).toBe('pkill -f "npx /x"');
  });
});
