/**
 * The poll worker: runs the /proc reader on its own thread. A full scan takes ~100 ms at 5,000
 * processes; on the main thread that would stall IPC, the WebSocket and (in Electron) the window.
 * It answers one request at a time; the host never has more than one read in flight.
 */
import { parentPort, threadId } from 'node:worker_threads';
import {
  createPortReader,
  createTableReader,
  findOrphans,
  type PortReader,
  type ProcessEntry,
  type ProcessTable,
  readLeanProcTable,
  statePaths,
} from '@treewarden/engine';
import { observeAgents } from './agent-observer.js';
import type { PollRequest, PollResponse, PollWorkerMessage, TableDelta } from './messages.js';

// The engine's platform reader (Linux: /proc with an identity cache, owned trees via the
// kernel's children files); it lives here so its cache is reused across polls.
// keepIdle: this table is what the UI shows, and an idle process's unchanged entry is the cost
// saved (most of a quiet poll); kills and owners read every process themselves.
const reader = createTableReader(process.platform, { keepIdle: true });
// Created on first use: a platform without a port reader fails only the port requests, with its message.
let portReader: PortReader | null = null;

async function readPorts(pids: readonly number[] | null) {
  // Cached: the system view asks for every process's ports every few seconds.
  portReader ??= createPortReader(process.platform, {
    cached: true,
    // The table this worker answered last (≤ one poll old) knows every start time already.
    startTimeHint: (pid) => sent?.get(pid)?.startTime,
    // Its pids too, when it is that fresh: a read between full ones then lists no /proc.
    pidsHint: () =>
      lastFull !== null && Date.now() - lastFull.readAtMs <= FRESH_TABLE_MS ? lastFull.entries.keys() : undefined,
  });
  return pids === null ? portReader.readAll() : portReader.readForPids(pids);
}

/** How old the last full table may be to stand in for a fresh read (one default poll). */
const FRESH_TABLE_MS = 1000;
let lastFull: ProcessTable | null = null;

// The last full table answered, and its number: the base of the next delta.
let sent: ReadonlyMap<number, ProcessEntry> | null = null;
let sentSeq = 0;

/** The full table as a delta against the last one sent, or whole when the host has another base. */
function deltaOf(entries: ReadonlyMap<number, ProcessEntry>, baseSeq: number): TableDelta {
  const base = sent !== null && baseSeq === sentSeq ? sent : null;
  sent = entries;
  sentSeq += 1;
  if (base === null) return { seq: sentSeq, baseSeq: null, changed: entries, removed: [] };
  const changed = new Map<number, ProcessEntry>();
  // forEach, not for-of over entries: no [pid, entry] pair per process each poll.
  entries.forEach((entry, pid) => {
    if (base.get(pid) !== entry) changed.set(pid, entry);
  });
  const removed: number[] = [];
  for (const pid of base.keys()) if (!entries.has(pid)) removed.push(pid);
  return { seq: sentSeq, baseSeq, changed, removed };
}

async function answer(request: PollRequest): Promise<PollResponse> {
  const started = performance.now();
  try {
    if (request.kind === 'orphans') {
      // The full table read for the system view moments ago serves the leak judgement too: one
      // /proc walk less every scan. Older than a poll, or none (no view watching): read afresh.
      const table = lastFull !== null && Date.now() - lastFull.readAtMs <= FRESH_TABLE_MS ? lastFull : undefined;
      const orphans = findOrphans({ paths: statePaths(request.stateDir), table });
      return { id: request.id, ok: true, orphans, durationMs: performance.now() - started, threadId };
    }
    if (request.kind === 'agents') {
      const agents = observeAgents(request.stateDir);
      return { id: request.id, ok: true, agents, durationMs: performance.now() - started, threadId };
    }
    if (request.kind === 'ports') {
      const ports = await readPorts(request.pids);
      return { id: request.id, ok: true, ports, durationMs: performance.now() - started, threadId };
    }
    if (request.kind === 'all') {
      const table = await reader.readAll();
      if (table === null) return { id: request.id, ok: false, error: 'no process table could be read' };
      lastFull = table;
      const delta = deltaOf(table.entries, request.baseSeq);
      const durationMs = performance.now() - started;
      return { id: request.id, ok: true, delta, readAtMs: table.readAtMs, durationMs, threadId };
    }
    const table = request.kind === 'lean' ? readLeanProcTable() : await reader.readTrees(request.rootPids);
    if (table === null) return { id: request.id, ok: false, error: 'no process table could be read' };
    const durationMs = performance.now() - started;
    return { id: request.id, ok: true, entries: table.entries, readAtMs: table.readAtMs, durationMs, threadId };
  } catch (error) {
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (message: PollWorkerMessage) => {
  // Between tasks, so never inside a koffi definition (the port reader defines its own lazily).
  if (message.kind === 'end') process.exit(0);
  else void answer(message).then((response) => parentPort?.postMessage(response));
});
