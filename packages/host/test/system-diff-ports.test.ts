/** A process that starts or stops listening is an upsert in the system diff, like a CPU change. */
import type { ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { diffSystem, nodeKey } from '../src/snapshot/system-diff.js';

function node(listening?: ProcessNode['listening']): ProcessNode {
  return {
    pid: 42,
    startTime: '4200',
    ppid: 1,
    pgid: 42,
    sid: 42,
    state: 'S',
    uid: 1000,
    command: 'node',
    commandLine: 'node server.js',
    cwd: '/tmp',
    cpuPercent: 0,
    rssBytes: 1024,
    startedAtMs: 0,
    escaped: false,
    ...(listening === undefined ? {} : { listening }),
  };
}

describe('system diff with ports', () => {
  it('sends a node again when its listening sockets change, and not when they stay', () => {
    const before = node();
    const after = node([{ proto: 'tcp', address: '127.0.0.1', port: 3000 }]);
    const table = (entry: ProcessNode) => new Map([[nodeKey(entry), entry]]);
    expect(diffSystem(table(before), table(after)).upserts).toEqual([after]);
    expect(diffSystem(table(after), table(node([{ proto: 'tcp', address: '127.0.0.1', port: 3000 }]))).upserts).toEqual(
      [],
    );
    expect(diffSystem(table(after), table(before)).upserts).toEqual([before]);
  });
});
