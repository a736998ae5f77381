/**
 * Cleaning agent leaks with injected kills and tables: one kill per leaked subtree root, a tree that
 * now holds a process the leak did not name is refused before anything is signalled, and a kill
 * refused for a changed identity is reported per process, never retried on the new process.
 */
import { describe, expect, it } from 'vitest';
import { cleanAgentLeaks } from '../../src/agents/clean-leaks.js';
import type { AgentLeak } from '../../src/agents/find-leaks.js';
import type { KillOutcome, KillTreeOptions } from '../../src/kill/types.js';
import type { ProcessIdentity } from '../../src/table/types.js';
import { type FakeProcess, fakeEntry, fakeTable } from '../helpers/index.js';

const LEAKED: FakeProcess[] = [
  { pid: 101, ppid: 1, pgid: 100 },
  { pid: 102, ppid: 101, pgid: 100 },
  { pid: 105, ppid: 1, pgid: 105 },
];

function leakOf(processes: FakeProcess[]): AgentLeak {
  return {
    sessionId: 'claude-code-100-5',
    agent: 'claude-code',
    root: { pid: 100, startTime: '5' },
    why: 'root gone',
    processes: processes.map((p) => ({ entry: fakeEntry(p), role: 'other' as const, reasons: ['remembered'] })),
  };
}

function outcome(target: ProcessIdentity, result: KillOutcome['result'], killed: ProcessIdentity[] = []): KillOutcome {
  return {
    result,
    target,
    attempts: 1,
    killed,
    survivors: [],
    timeline: [],
    startedAtMs: 0,
    durationMs: 0,
    ...(result === 'refused' ? { error: 'start time changed' } : {}),
  };
}

describe('cleanAgentLeaks', () => {
  it('kills each leaked subtree once, from its top', async () => {
    const calls: ProcessIdentity[] = [];
    const killTree = async (target: ProcessIdentity, _options: KillTreeOptions) => {
      calls.push(target);
      return outcome(target, 'killed', [target]);
    };
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: () => fakeTable(LEAKED) });
    expect(calls.map((call) => call.pid).sort()).toEqual([101, 105]);
    expect(cleaned?.processes.map((p) => p.result)).toEqual(['killed', 'killed', 'killed']);
    expect(cleaned?.survivors).toEqual([]);
  });

  it('refuses a subtree that now holds a process the leak did not name, and signals nothing there', async () => {
    const calls: number[] = [];
    const killTree = async (target: ProcessIdentity) => {
      calls.push(target.pid);
      return outcome(target, 'killed', [target]);
    };
    const stranger: FakeProcess = { pid: 200, ppid: 102, pgid: 200 };
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], {
      killTree,
      readTable: () => fakeTable([...LEAKED, stranger]),
    });
    expect(calls).toEqual([105]);
    const refused = cleaned?.processes.filter((p) => p.result === 'refused').map((p) => p.pid);
    expect(refused).toEqual([101, 102]);
    expect(cleaned?.processes.find((p) => p.pid === 101)?.detail).toMatch(/did not name: 200/);
    expect([...(cleaned?.survivors ?? [])].sort()).toEqual([101, 102]);
  });

  it("reports the kill's refusal of a changed identity for every process of that subtree", async () => {
    const killTree = async (target: ProcessIdentity) =>
      outcome(target, target.pid === 101 ? 'refused' : 'killed', [target]);
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: () => fakeTable(LEAKED) });
    expect(cleaned?.processes.map((p) => [p.pid, p.result])).toEqual([
      [101, 'refused'],
      [102, 'refused'],
      [105, 'killed'],
    ]);
  });
});
