/**
 * What a run's tree holds now, for list_runs and start_background: its listening ports and its
 * live members' CPU time and memory, read fresh for the members the guardian last reported.
 */
import { createPortReader, isZombie, type PortReader, readProcEntry } from '@treewarden/engine';
import type { SessionRun } from './session-runs.js';

export interface RunUsage {
  readonly ports: number[];
  readonly liveProcesses: number;
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
}

const NOTHING: RunUsage = { ports: [], liveProcesses: 0, cpuSeconds: 0, memoryBytes: 0 };

export async function readRunUsage(target: SessionRun, ports: PortReader = createPortReader()): Promise<RunUsage> {
  if (target.outcome() !== null) return NOTHING;
  let liveProcesses = 0;
  let cpuMs = 0;
  let memoryBytes = 0;
  const live: number[] = [];
  for (const member of target.members()) {
    const entry = readProcEntry(member.pid);
    // A recycled pid is someone else's process: it counts for nothing.
    if (entry === null || entry.startTime !== member.startTime || isZombie(entry)) continue;
    live.push(entry.pid);
    liveProcesses += 1;
    cpuMs += entry.cpuTimeMs + (entry.childrenCpuTimeMs ?? 0);
    memoryBytes += entry.rssBytes;
  }
  const map = live.length === 0 ? null : await ports.readForPids(live).catch(() => null);
  const open = [...new Set(map?.listeners.map((listener) => listener.port) ?? [])].sort((a, b) => a - b);
  return { ports: open, liveProcesses, cpuSeconds: Math.round(cpuMs) / 1000, memoryBytes };
}
