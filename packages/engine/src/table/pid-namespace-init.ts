/**
 * Whether a process is the init of a pid namespace (`unshare --pid --fork`, a container's first
 * process): such a process adopts the orphans of every process in its namespace, including ones
 * that entered it with setns and are not its descendants, so its children cannot be derived from
 * its descendants' parents; the focused read reads them exactly, as it does pid 1's. A process's
 * pid namespace is fixed for its life, so the answer is kept per identity.
 */
import { readProcText } from './linux-stat.js';

/** `NSpid:` in /proc/PID/status lists the pid in each namespace, outermost first; an init's last is 1. */
export function parseIsNamespaceInit(status: string): boolean {
  const match = /^NSpid:\s*([\d\s]+)$/m.exec(status);
  const pids = match?.[1]?.trim().split(/\s+/) ?? [];
  return pids.length > 1 && pids[pids.length - 1] === '1';
}

export interface NamespaceInitCache {
  /** True when `pid` (started at `startTicks`) is a namespace init, or unreadable (then read exactly). */
  isInit(pid: number, startTicks: string): boolean;
  /** Keeps only these pids' answers (the processes followed this tick). */
  retain(pids: ReadonlySet<number>): void;
}

export function createNamespaceInitCache(): NamespaceInitCache {
  const known = new Map<number, { readonly startTicks: string; readonly init: boolean }>();
  return {
    isInit(pid, startTicks) {
      const cached = known.get(pid);
      if (cached !== undefined && cached.startTicks === startTicks) return cached.init;
      const status = readProcText(`/proc/${pid}/status`);
      // Unreadable: say yes, so the caller falls back to the exact read (never a wrong derivation).
      if (status === null) return true;
      const init = parseIsNamespaceInit(status);
      known.set(pid, { startTicks, init });
      return init;
    },
    retain(pids) {
      for (const pid of known.keys()) if (!pids.has(pid)) known.delete(pid);
    },
  };
}
