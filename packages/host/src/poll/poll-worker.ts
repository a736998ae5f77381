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
  readLeanProcTable,
  statePaths,
} from '@treewarden/engine';
import { observeAgents } from './agent-observer.js';
import type { PollRequest, PollResponse } from './messages.js';

// The engine's platform reader (Linux: /proc with an identity cache, owned trees via the
// kernel's children files); it lives here so its cache is reused across polls.
const reader = createTableReader();
// Created on first use: a platform without a port reader fails only the port requests, with its message.
let portReader: PortReader | null = null;

async function readPorts(pids: readonly number[] | null) {
  portReader ??= createPortReader();
  return pids === null ? portReader.readAll() : portReader.readForPids(pids);
}

async function answer(request: PollRequest): Promise<PollResponse> {
  const started = performance.now();
  try {
    if (request.kind === 'orphans') {
      const orphans = findOrphans({ paths: statePaths(request.stateDir) });
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
    const table =
      request.kind === 'all'
        ? await reader.readAll()
        : request.kind === 'lean'
          ? readLeanProcTable()
          : await reader.readTrees(request.rootPids);
    if (table === null) return { id: request.id, ok: false, error: 'no process table could be read' };
    const durationMs = performance.now() - started;
    return { id: request.id, ok: true, entries: table.entries, readAtMs: table.readAtMs, durationMs, threadId };
  } catch (error) {
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (request: PollRequest) => {
  void answer(request).then((response) => parentPort?.postMessage(response));
});
