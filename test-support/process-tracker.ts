/**
 * Records every pid and process group a test starts and ends them after the test, by the
 * identity recorded (pid + start time), never by name. `useProcessTracker()` wires the cleanup
 * into vitest's afterEach.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readProcEntry } from '@treewarden/engine';
import { afterEach } from 'vitest';
import { pollUntil } from './poll-until.js';

/** How long cleanup waits for the processes it SIGKILLed to disappear (or become zombies). */
export const CLEANUP_WAIT_MS = 5000;

export interface TrackedProcess {
  readonly pid: number;
  /** Start time at tracking; null when the process was already gone. */
  readonly startTime: string | null;
}

export interface ProcessTracker {
  /** Records a pid (with its current start time, so cleanup never hits a recycled pid). */
  trackPid(pid: number): TrackedProcess;
  /** Records a process group to SIGKILL at cleanup (never this process's own group). */
  trackGroup(pgid: number): void;
  /** Records a spawned child; `detached` children lead their own group, which is tracked too. */
  trackChild(child: ChildProcess, options?: { readonly detached?: boolean }): number;
  /** Records an env marker (`NAME=value`): every process carrying it is ended at cleanup. */
  trackEnvMarker(name: string, value: string): void;
  tracked(): readonly TrackedProcess[];
  /** SIGKILLs everything recorded, waits (bounded) for it to go, returns pids still alive. */
  cleanup(): Promise<number[]>;
}

const ownPgid = readProcEntry(process.pid)?.pgid ?? -1;

function isLiveIdentity(tracked: TrackedProcess): boolean {
  const entry = readProcEntry(tracked.pid);
  return entry !== null && entry.startTime === tracked.startTime && entry.state !== 'Z' && entry.state !== 'X';
}

function killQuietly(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

/** Scans /proc for processes whose environment holds `marker` exactly. */
export function findEnvCarriers(marker: string): TrackedProcess[] {
  const carriers: TrackedProcess[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)) continue;
      const entry = readProcEntry(pid);
      if (entry) carriers.push({ pid, startTime: entry.startTime });
    } catch {
      // Gone or unreadable.
    }
  }
  return carriers;
}

export function createProcessTracker(): ProcessTracker {
  const processes: TrackedProcess[] = [];
  const groups = new Set<number>();
  const markers = new Set<string>();

  function trackPid(pid: number): TrackedProcess {
    const tracked = { pid, startTime: readProcEntry(pid)?.startTime ?? null };
    processes.push(tracked);
    return tracked;
  }

  return {
    trackPid,
    trackGroup(pgid) {
      if (pgid > 1 && pgid !== ownPgid) groups.add(pgid);
    },
    trackChild(child, options = {}) {
      const pid = child.pid;
      if (pid === undefined) throw new Error('trackChild: the child has no pid (spawn failed?)');
      trackPid(pid);
      if (options.detached && pid !== ownPgid) groups.add(pid);
      return pid;
    },
    trackEnvMarker(name, value) {
      markers.add(`${name}=${value}`);
    },
    tracked: () => [...processes],
    async cleanup() {
      for (const marker of markers) processes.push(...findEnvCarriers(marker));
      for (const pgid of groups) killQuietly(-pgid);
      const targets = processes.filter((p) => p.startTime !== null && p.pid > 1 && p.pid !== process.pid);
      for (const target of targets) if (isLiveIdentity(target)) killQuietly(target.pid);
      let survivors: number[] = [];
      try {
        await pollUntil(
          () => {
            survivors = targets.filter(isLiveIdentity).map((t) => t.pid);
            return survivors.length === 0;
          },
          { deadlineMs: CLEANUP_WAIT_MS, description: 'tracked processes to die' },
        );
      } catch {
        // Reported through the return value.
      }
      processes.length = 0;
      groups.clear();
      markers.clear();
      return survivors;
    },
  };
}

/** A tracker whose cleanup runs after each test of the calling file. */
export function useProcessTracker(): ProcessTracker {
  const tracker = createProcessTracker();
  afterEach(async () => {
    const survivors = await tracker.cleanup();
    if (survivors.length > 0) throw new Error(`process tracker: pids survived cleanup: ${survivors.join(', ')}`);
  });
  return tracker;
}
