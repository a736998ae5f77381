/**
 * Cleaning agent leaks with injected kills and tables: one kill per leaked subtree root, a tree that
 * now holds a process the leak did not name is refused before anything is signalled, and a kill
 * refused for a changed identity is reported per process, never retried on the new process.
 */
import { describe, expect, it } from 'vitest';
import { cleanAgentLeaks } from '../../src/agents/leaks/clean-leaks.js';
import type { AgentLeak } from '../../src/agents/leaks/find-leaks.js';
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

/** A mutable table whose kills remove the target's subtree, as a real kill does. */
function world(processes: FakeProcess[]) {
  let current = [...processes];
  return {
    readTable: () => fakeTable(current),
    end(target: ProcessIdentity) {
      const ended = new Set([target.pid]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const p of current)
          if (!ended.has(p.pid) && ended.has(p.ppid)) {
            ended.add(p.pid);
            grew = true;
          }
      }
      current = current.filter((p) => !ended.has(p.pid));
    },
    exit(pid: number) {
      current = current.filter((p) => p.pid !== pid).map((p) => (p.ppid === pid ? { ...p, ppid: 1 } : p));
    },
  };
}

/** A kill that ends its target's subtree in `machine` and records the target's pid in `calls`. */
function endingKill(machine: ReturnType<typeof world>, calls: number[]) {
  return async (target: ProcessIdentity, _options?: KillTreeOptions) => {
    calls.push(target.pid);
    machine.end(target);
    return outcome(target, 'killed', [target]);
  };
}

describe('cleanAgentLeaks', () => {
  it('kills each leaked subtree once, from its top', async () => {
    const calls: ProcessIdentity[] = [];
    const machine = world(LEAKED);
    const killTree = async (target: ProcessIdentity, _options: KillTreeOptions) => {
      calls.push(target);
      machine.end(target);
      return outcome(target, 'killed', [target]);
    };
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    expect(calls.map((call) => call.pid).sort()).toEqual([101, 105]);
    expect(cleaned?.processes.map((p) => p.result)).toEqual(['killed', 'killed', 'killed']);
    expect(cleaned?.survivors).toEqual([]);
  });

  it('refuses a subtree that now holds a process the leak did not name, and signals nothing there', async () => {
    const calls: number[] = [];
    const stranger: FakeProcess = { pid: 200, ppid: 102, pgid: 200 };
    const machine = world([...LEAKED, stranger]);
    const killTree = endingKill(machine, calls);
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    expect(calls).toEqual([105]);
    const refused = cleaned?.processes.filter((p) => p.result === 'refused').map((p) => p.pid);
    expect(refused).toEqual([101, 102]);
    expect(cleaned?.processes.find((p) => p.pid === 101)?.detail).toMatch(/did not name: 200/);
    expect([...(cleaned?.survivors ?? [])].sort()).toEqual([101, 102]);
  });

  it("reports the kill's refusal of a changed identity for every process of that subtree", async () => {
    const machine = world(LEAKED);
    const killTree = async (target: ProcessIdentity) => {
      if (target.pid !== 101) machine.end(target);
      return outcome(target, target.pid === 101 ? 'refused' : 'killed', [target]);
    };
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    expect(cleaned?.processes.map((p) => [p.pid, p.result])).toEqual([
      [101, 'refused'],
      [102, 'refused'],
      [105, 'killed'],
    ]);
  });

  it('kills the children of a root that exited before the clean, each from its own top', async () => {
    const machine = world(LEAKED);
    machine.exit(101);
    const calls: number[] = [];
    const killTree = endingKill(machine, calls);
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    expect(calls.sort()).toEqual([102, 105]);
    expect(cleaned?.processes.map((p) => [p.pid, p.result, p.detail])).toEqual([
      [101, 'already_gone', 'exited before the clean'],
      [102, 'killed', undefined],
      [105, 'killed', undefined],
    ]);
  });

  it('never reports a process as ended while it still runs: one more kill, then kill_failed', async () => {
    const machine = world(LEAKED);
    const calls: number[] = [];
    // The root exits as the kill reaches it (the race): the kill answers already_gone, 102 lives on.
    const killTree = async (target: ProcessIdentity) => {
      calls.push(target.pid);
      if (target.pid === 101) {
        machine.exit(101);
        return outcome(target, 'already_gone');
      }
      if (target.pid === 105) machine.end(target);
      return outcome(target, 'killed', [target]);
    };
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    // 102 got a kill of its own, which (scripted) did not take: it is reported as surviving.
    expect(calls).toEqual([101, 105, 102]);
    expect(cleaned?.processes.map((p) => [p.pid, p.result])).toEqual([
      [101, 'already_gone'],
      [102, 'kill_failed'],
      [105, 'killed'],
    ]);
    expect(cleaned?.survivors).toEqual([102]);
  });

  it('refuses the named subtree of a pid that now holds another process, and kills nothing under it', async () => {
    const recycled = LEAKED.map((p) => (p.pid === 101 ? { ...p, startTime: 'st-101-new' } : p));
    const machine = world(recycled);
    const calls: number[] = [];
    const killTree = endingKill(machine, calls);
    const [cleaned] = await cleanAgentLeaks([leakOf(LEAKED)], { killTree, readTable: machine.readTable });
    expect(calls).toEqual([105]);
    expect(cleaned?.processes.map((p) => [p.pid, p.result])).toEqual([
      [101, 'refused'],
      [102, 'refused'],
      [105, 'killed'],
    ]);
    expect(cleaned?.processes[1]?.detail).toMatch(/pid 101 now holds another process/);
  });
});
