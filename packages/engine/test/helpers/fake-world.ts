/**
 * Injected process tables and signal functions, for what this machine cannot produce: macOS
 * EPERM from killpg, Windows, and exact races between a read and a signal.
 */
import type { SignalName, SignalOps, SignalResult } from '../../src/signal/types.js';
import type { ProcessEntry, ProcessTable, TableReader } from '../../src/table/types.js';

export type FakeProcess = Pick<ProcessEntry, 'pid' | 'ppid' | 'pgid'> & Partial<ProcessEntry>;

export function fakeEntry(process: FakeProcess): ProcessEntry {
  return {
    startTime: `st-${process.pid}`,
    sid: process.pgid,
    state: 'S',
    // The caller's own user: a member of another user is never group-signalled.
    uid: typeof globalThis.process.getuid === 'function' ? globalThis.process.getuid() : 501,
    command: `proc${process.pid}`,
    args: [],
    cwd: null,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
    ...process,
  };
}

export function fakeTable(processes: readonly FakeProcess[]): ProcessTable {
  return { entries: new Map(processes.map((p) => [p.pid, fakeEntry(p)])), readAtMs: Date.now() };
}

/** A mutable world: the reader returns its current processes; `next` lets a test script reads. */
export interface FakeWorld {
  processes: FakeProcess[];
  readonly reader: TableReader;
  /** Reads served so far. */
  reads: number;
  /** Optional per-read override: return a table for read number N (1-based), else the current world. */
  script?: (read: number) => FakeProcess[] | null | undefined;
}

export function createFakeWorld(processes: FakeProcess[], platform: NodeJS.Platform = 'darwin'): FakeWorld {
  const world: FakeWorld = {
    processes,
    reads: 0,
    reader: {
      platform,
      readAll: async () => {
        world.reads += 1;
        const scripted = world.script?.(world.reads);
        if (scripted === null) return null;
        return fakeTable(scripted ?? world.processes);
      },
      readTrees: async () => world.reader.readAll(),
    },
  };
  return world;
}

export interface SignalCall {
  readonly kind: 'process' | 'group';
  readonly target: number;
  readonly signal: SignalName;
}

export interface FakeSignals extends SignalOps {
  readonly calls: SignalCall[];
}

/**
 * Signals that act on the fake world: SIGKILL (and SIGTERM unless `ignoreTerm`) remove the
 * targets; `answer` may override the result (e.g. EPERM for a group) before anything happens.
 */
export function createFakeSignals(
  world: FakeWorld,
  options: {
    readonly answer?: (call: SignalCall) => SignalResult | undefined;
    readonly ignoreTerm?: boolean;
  } = {},
): FakeSignals {
  const calls: SignalCall[] = [];
  function act(call: SignalCall, matches: (p: FakeProcess) => boolean): SignalResult {
    calls.push(call);
    const answered = options.answer?.(call);
    if (answered !== undefined) return answered;
    const hit = world.processes.filter(matches);
    if (hit.length === 0) return 'gone';
    const lethal = call.signal === 'SIGKILL' || (call.signal === 'SIGTERM' && !options.ignoreTerm);
    if (lethal) world.processes = world.processes.filter((p) => !matches(p) || p.state === 'Z');
    return 'sent';
  }
  return {
    calls,
    signalProcess: (target, signal) =>
      act(
        { kind: 'process', target: target.pid, signal },
        (p) => p.pid === target.pid && (p.startTime ?? `st-${p.pid}`) === target.startTime,
      ),
    signalGroup: (pgid, signal) => act({ kind: 'group', target: pgid, signal }, (p) => p.pgid === pgid),
  };
}
