/**
 * A TableReader whose reads run in a worker thread. The host (and anything in the engine that
 * accepts a `reader`, such as the tree kill) uses it so no table read ever blocks the main thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { exitedWithin, type ProcessEntry, type ProcessTable, trackNativeThread } from '@treewarden/engine';
import type { PollKind, WorkerReadStats, WorkerTableReader } from '../engine/reads.js';
import type { PollRequest, PollResponse, PollWorkerMessage, TableDelta } from './messages.js';

export type { PollKind, WorkerReadStats, WorkerTableReader } from '../engine/reads.js';

/** A read that takes longer than this yields "no table" rather than a wait without end. */
export const WORKER_READ_TIMEOUT_MS = 10_000;
/** close() waits this long for the worker to end when asked, then stops it from outside. */
const WORKER_END_MS = 5_000;

type TableRequestBody =
  | { kind: 'all'; baseSeq: number }
  | { kind: 'lean' }
  | { kind: 'trees'; rootPids: readonly number[] };
type PollRequestBody =
  | TableRequestBody
  | { kind: 'orphans' | 'agents'; stateDir: string }
  | { kind: 'ports'; pids: readonly number[] | null };

function defaultWorkerUrl(): URL {
  const sibling = new URL('./poll-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  // Loaded from src/ (vitest): the worker itself must be compiled JavaScript, found in dist/.
  return new URL('../../dist/poll/poll-worker.js', import.meta.url);
}

/**
 * V8's memory reducer off for the isolates made from here on (V8's flags are the process's; an
 * isolate reads this one when its heap is set up, so the worker below goes without). The worker
 * lives as long as its host, allocates a steady ~1 MB a second and keeps a ~17 MB heap; the
 * reducer answered each full GC with two or three more to hand memory back that the next
 * seconds took again: the idle bench's V8 helper threads 0.53 → 0.21–0.27 % of a core at ~1,000
 * processes (packages/bench/RESULTS.md). Full GCs still run when the heap's limit asks.
 */
function withoutMemoryReducer(): void {
  setFlagsFromString('--no-memory-reducer');
}

export function createWorkerTableReader(workerUrl: URL = defaultWorkerUrl()): WorkerTableReader {
  withoutMemoryReducer();
  const worker = new Worker(workerUrl);
  // The worker must never keep the process alive on its own (the host's timers decide that).
  worker.unref();
  // It defines koffi bindings (the port reader's): it is asked to end, never terminated mid-task.
  const end = () => worker.postMessage({ kind: 'end' } satisfies PollWorkerMessage);
  const exited = trackNativeThread(worker, end);
  const pending = new Map<number, (response: PollResponse | null) => void>();
  let nextId = 1;
  let last: WorkerReadStats | null = null;
  let closed = false;
  const counts: Record<PollKind, number> = { all: 0, lean: 0, trees: 0, orphans: 0, ports: 0, agents: 0 };

  worker.on('message', (response: PollResponse) => {
    const settle = pending.get(response.id);
    pending.delete(response.id);
    settle?.(response);
  });
  worker.on('error', () => {
    for (const settle of pending.values()) settle(null);
    pending.clear();
  });

  function send(body: PollRequestBody): Promise<PollResponse | null> {
    if (closed) return Promise.resolve(null);
    counts[body.kind] += 1;
    const id = nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(null);
      }, WORKER_READ_TIMEOUT_MS);
      pending.set(id, (response) => {
        clearTimeout(timer);
        if (response?.ok) last = { durationMs: response.durationMs, threadId: response.threadId };
        resolve(response);
      });
      worker.postMessage({ id, ...body } satisfies PollRequest);
    });
  }

  // The last full table applied and its number (0: none; the worker's numbers start at 1).
  let mirror: ReadonlyMap<number, ProcessEntry> = new Map();
  let mirrorSeq = 0;

  /** The table a delta makes of the mirror; null when it was made against another base. */
  function applyDelta(delta: TableDelta): ReadonlyMap<number, ProcessEntry> | null {
    if (delta.baseSeq !== null && delta.baseSeq !== mirrorSeq) return null;
    let entries: Map<number, ProcessEntry>;
    if (delta.baseSeq === null) entries = new Map(delta.changed);
    else {
      // A new Map each time: a caller may still hold (and compare against) the previous table.
      entries = new Map(mirror);
      for (const pid of delta.removed) entries.delete(pid);
      for (const [pid, entry] of delta.changed) entries.set(pid, entry);
    }
    mirror = entries;
    mirrorSeq = delta.seq;
    return entries;
  }

  async function readAll(): Promise<ProcessTable | null> {
    const response = await send({ kind: 'all', baseSeq: mirrorSeq });
    if (response === null || !response.ok || !('delta' in response)) return null;
    const since = mirror;
    const { delta } = response;
    const entries = applyDelta(delta);
    if (entries !== null && delta.baseSeq === null) return { entries, readAtMs: response.readAtMs };
    if (entries !== null)
      return {
        entries,
        readAtMs: response.readAtMs,
        changes: { since, changed: delta.changed, removed: delta.removed },
      };
    // Answered against a base this side never applied (an answer lost to a timeout): ask whole.
    mirrorSeq = 0;
    return readAll();
  }

  async function request(body: TableRequestBody): Promise<ProcessTable | null> {
    const response = await send(body);
    if (response === null || !response.ok || !('entries' in response)) return null;
    return { entries: response.entries, readAtMs: response.readAtMs };
  }

  return {
    platform: process.platform,
    readAll,
    readTrees: (rootPids) => request({ kind: 'trees', rootPids: [...rootPids] }),
    lean: {
      platform: process.platform,
      readAll: () => request({ kind: 'lean' }),
      readTrees: (rootPids) => request({ kind: 'trees', rootPids: [...rootPids] }),
    },
    async scanOrphans(stateDir) {
      const response = await send({ kind: 'orphans', stateDir });
      return response?.ok && 'orphans' in response ? response.orphans : null;
    },
    async readPorts(pids) {
      const response = await send({ kind: 'ports', pids: pids === null ? null : [...pids] });
      return response?.ok && 'ports' in response ? response.ports : null;
    },
    async observeAgents(stateDir) {
      const response = await send({ kind: 'agents', stateDir });
      return response?.ok && 'agents' in response ? response.agents : null;
    },
    counts: () => ({ ...counts }),
    lastRead: () => last,
    async close() {
      closed = true;
      for (const settle of pending.values()) settle(null);
      pending.clear();
      end();
      // A worker that did not end in time is stuck in a read, not in a definition.
      if (!(await exitedWithin(exited, WORKER_END_MS))) await worker.terminate();
    },
  };
}
