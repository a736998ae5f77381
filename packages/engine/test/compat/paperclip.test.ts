import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  createProcessTreeOwner,
  type ProcessObservation,
  readProcessTable,
  stopOwnedProcessTree,
} from '../../src/compat/paperclip.js';
import { isRunning, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

const GRACE_MS = 300;
const KILL_MS = 3000;

function observation(
  pid: number,
  parentPid: number,
  processGroupId: number,
  extra: Partial<ProcessObservation> = {},
): ProcessObservation {
  return { pid, parentPid, processGroupId, started: `st-${pid}`, state: 'S', kind: 'live', ...extra };
}

/** A stand-in ChildProcess for injected worlds: Node never reports it exited. */
function fakeChild(pid: number, onKill: (signal: string) => void = () => {}): ChildProcess {
  return {
    pid,
    exitCode: null,
    signalCode: null,
    kill: (signal: string) => {
      onKill(signal);
      return true;
    },
  } as unknown as ChildProcess;
}

describe('paperclip compat on real processes', () => {
  const tracker = useProcessTracker();

  it('owns a detached child’s tree, stops it gracefully, and reports the groups it signalled', async () => {
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true });
    const [escaped] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'escaped' });
    const owner = createProcessTreeOwner(fixture.child);
    try {
      await owner.observe();
      expect(owner.gracefulRoots()).toEqual([fixture.pid]);
      expect([...owner.liveGroups()].sort()).toEqual([fixture.pid, escaped?.pid].sort());
      expect(await owner.signal('SIGCONT')).toEqual([escaped?.pid, fixture.pid]);
      await stopOwnedProcessTree(fixture.child, owner, GRACE_MS, KILL_MS);
      expect(isRunning(fixture.pid)).toBe(false);
      expect(isRunning(escaped?.pid as number)).toBe(false);
      expect(owner.liveGroups()).toEqual([]);
    } finally {
      owner.stopObserving();
    }
  });

  it('without a table, stops the direct child with SIGTERM then SIGKILL', async () => {
    const fixture = spawnFixture(tracker, 'ignore-sigterm.mjs', [], { detached: true });
    await readReportedPids(tracker, fixture.reportFile, 1);
    const owner = createProcessTreeOwner(fixture.child, { readTable: async () => null });
    try {
      await stopOwnedProcessTree(fixture.child, owner, GRACE_MS, KILL_MS);
      await pollUntil(() => !isRunning(fixture.pid), { description: 'the child to die' });
    } finally {
      owner.stopObserving();
    }
  });

  it('readProcessTable SIGKILLs an inspector whose output passes the cap and yields no table', async () => {
    let inspector: ChildProcess | undefined;
    const table = await readProcessTable(() => {
      inspector = spawn('yes', ['a-long-line-of-ps-output'], { stdio: ['ignore', 'pipe', 'ignore'] });
      tracker.trackChild(inspector);
      return inspector;
    });
    expect(table).toBeNull();
    await pollUntil(() => inspector?.signalCode === 'SIGKILL', { description: 'the inspector to be SIGKILLed' });
  });

  it('readProcessTable parses a ps listing into observations (zombies marked)', async () => {
    const listing = [
      '  501     1   501   0 Ss    1024 0:00.10 Mon Nov 30 07:28:50 2026 /usr/bin/worker --serve',
      '  502   501   501   0 Z        0 0:00.00 Mon Nov 30 07:28:51 2026 (sh)',
    ].join('\n');
    const table = await readProcessTable(() =>
      spawn('printf', ['%s\n', listing], { stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    expect(table).toEqual([
      { pid: 501, parentPid: 1, processGroupId: 501, started: 'Mon Nov 30 07:28:50 2026', state: 'S', kind: 'live' },
      {
        pid: 502,
        parentPid: 501,
        processGroupId: 501,
        started: 'Mon Nov 30 07:28:51 2026',
        state: 'Z',
        kind: 'zombie',
      },
    ]);
  });
});

describe('paperclip compat on injected tables', () => {
  function world(initial: ProcessObservation[]) {
    const state = { table: initial as ProcessObservation[] | null, signalled: [] as [number, string][] };
    const readTable = async () => state.table;
    return { state, readTable };
  }

  it('rejects with `Known direct child remained` when no table can be read and the child survives SIGKILL', async () => {
    const signals: string[] = [];
    const child = fakeChild(40100, (signal) => signals.push(signal));
    const owner = createProcessTreeOwner(child, { readTable: async () => null });
    try {
      await expect(stopOwnedProcessTree(child, owner, 30, 30)).rejects.toThrow(/^Known direct child remained/);
      expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
      await expect(owner.signal('SIGKILL')).rejects.toThrow(/no process table could be read/);
    } finally {
      owner.stopObserving();
    }
  });

  it('refuses the whole signal when a group holds a live member it does not own', async () => {
    const { state, readTable } = world([observation(40100, 900, 40100), observation(40101, 40100, 40100)]);
    const owner = createProcessTreeOwner(fakeChild(40100), {
      readTable,
      signalGroup: (pgid, signal) => state.signalled.push([pgid, signal]),
    });
    try {
      await owner.observe();
      state.table = [...(state.table ?? []), observation(40150, 7, 40100)];
      await expect(owner.signal('SIGTERM')).rejects.toThrow(/identity became uncertain/);
      expect(state.signalled).toEqual([]);
    } finally {
      owner.stopObserving();
    }
  });

  it('refuses when the only anchor is a recycled controller', async () => {
    const { state, readTable } = world([observation(40100, 900, 40100)]);
    const owner = createProcessTreeOwner(fakeChild(40100), {
      readTable,
      signalGroup: (pgid, signal) => state.signalled.push([pgid, signal]),
    });
    try {
      await owner.observe();
      state.table = [observation(40100, 1, 40100, { started: 'recycled' })];
      await owner.observe();
      await expect(owner.signal('SIGKILL', [40100])).rejects.toThrow(
        'identity became uncertain: pid 40100 now has start time recycled, expected st-40100',
      );
      expect(state.signalled).toEqual([]);
    } finally {
      owner.stopObserving();
    }
  });

  it('macOS EPERM: a zombie-only group counts as gone, a running member keeps EPERM fatal', async () => {
    const { state, readTable } = world([
      observation(40100, 900, 40100),
      observation(40101, 40100, 40101),
      observation(40102, 40101, 40101),
    ]);
    let lastEperm: Error | undefined;
    const eperm = () => {
      lastEperm = Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      return lastEperm;
    };
    let zombify = true;
    const owner = createProcessTreeOwner(fakeChild(40100), {
      readTable,
      signalGroup: (pgid, signal) => {
        if (pgid !== 40101) return void state.signalled.push([pgid, signal]);
        if (zombify)
          state.table = (state.table ?? []).map((o) =>
            o.processGroupId === 40101 ? { ...o, kind: 'zombie', state: 'Z' } : o,
          );
        throw eperm();
      },
    });
    try {
      await owner.observe();
      expect(await owner.signal('SIGKILL')).toEqual([40100]);
      zombify = false;
      state.table = [observation(40100, 900, 40100), observation(40104, 40100, 40101)];
      await owner.observe();
      // The original supervisor surfaced the signal function's own error object, unchanged.
      let thrown: unknown;
      await owner.signal('SIGKILL').catch((error: unknown) => {
        thrown = error;
      });
      expect(thrown).toBe(lastEperm);
      expect(thrown).toMatchObject({ message: 'kill EPERM', code: 'EPERM' });
      const stopped = await stopOwnedProcessTree(fakeChild(40100), owner, 30, 30).catch((error: unknown) => error);
      expect(stopped).toBe(lastEperm);
    } finally {
      owner.stopObserving();
    }
  });

  it('gives the surviving groups SIGTERM first when the graceful root vanished before its SIGTERM', async () => {
    const root = observation(40100, 900, 40100);
    const escaped = observation(40101, 40100, 40101);
    const { state, readTable } = world([root, escaped]);
    let reads = 0;
    let vanishAfter = Number.POSITIVE_INFINITY;
    const owner = createProcessTreeOwner(fakeChild(40100), {
      readTable: async () => {
        reads += 1;
        // The root exits between the stop's observation and the SIGTERM's fresh read.
        if (reads > vanishAfter) state.table = (state.table ?? []).filter((o) => o.pid !== 40100).map(reparent);
        return readTable();
      },
      signalGroup: (pgid, signal) => {
        state.signalled.push([pgid, signal]);
        if (signal === 'SIGTERM') state.table = (state.table ?? []).filter((o) => o.processGroupId !== pgid);
      },
    });
    try {
      await owner.observe();
      vanishAfter = reads + 1;
      await stopOwnedProcessTree(fakeChild(40100), owner, 200, 200);
      expect(state.signalled).toEqual([[40101, 'SIGTERM']]);
    } finally {
      owner.stopObserving();
    }
  });

  it('still escalates to SIGKILL after the surviving groups ignored that SIGTERM', async () => {
    const { state, readTable } = world([observation(40100, 900, 40100), observation(40101, 40100, 40101)]);
    let reads = 0;
    let vanishAfter = Number.POSITIVE_INFINITY;
    const owner = createProcessTreeOwner(fakeChild(40100), {
      readTable: async () => {
        reads += 1;
        if (reads > vanishAfter) state.table = (state.table ?? []).filter((o) => o.pid !== 40100).map(reparent);
        return readTable();
      },
      signalGroup: (pgid, signal) => {
        state.signalled.push([pgid, signal]);
        if (signal === 'SIGKILL') state.table = (state.table ?? []).filter((o) => o.processGroupId !== pgid);
      },
    });
    try {
      await owner.observe();
      vanishAfter = reads + 1;
      await stopOwnedProcessTree(fakeChild(40100), owner, 100, 200);
      expect(state.signalled).toEqual([
        [40101, 'SIGTERM'],
        [40101, 'SIGKILL'],
      ]);
    } finally {
      owner.stopObserving();
    }
  });
});

/** A process whose parent exited, as the kernel shows it: reparented to pid 1. */
function reparent(o: ProcessObservation): ProcessObservation {
  return o.parentPid === 40100 ? { ...o, parentPid: 1 } : o;
}
