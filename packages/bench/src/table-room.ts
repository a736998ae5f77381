/**
 * The opt-in large loads of the table bench (BENCH_PROCESSES, as in the renderer bench) and the
 * check that the machine has room for them: every process takes a pid (threads too, out of
 * pid_max) and some memory, and other work shares the machine.
 */
import { readFileSync } from 'node:fs';

/** Pids kept free for everything else on the machine while the load is up. */
const PID_HEADROOM = 4_096;
/** A blocked forked shell costs ~100 KiB here (page tables, kernel stack, dirty pages); 4× margin. */
const BYTES_PER_PROCESS = 400 * 1024;
/** Sizes above this are the opt-in machine cases. */
const DEFAULT_MAX = 5_000;

/** BENCH_PROCESSES=20000 (or "5000,20000"): the sizes above ~5,000 to add, ascending. */
export function largeSizes(value: string | undefined = process.env.BENCH_PROCESSES): number[] {
  const sizes = (value ?? '').split(',').map((part) => Number(part.trim()));
  return [...new Set(sizes.filter((size) => Number.isInteger(size) && size > DEFAULT_MAX))].sort((a, b) => a - b);
}

export type LargeSizeCheck = { readonly ok: true } | { readonly ok: false; readonly why: string };

function procNumber(path: string, pattern: RegExp): number {
  const match = pattern.exec(readFileSync(path, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

/** Whether `more` processes can be started without starving the machine of pids or memory. */
export function roomForLoad(more: number): LargeSizeCheck {
  if (more <= 0) return { ok: true };
  const pidMax = procNumber('/proc/sys/kernel/pid_max', /^(\d+)/);
  // /proc/loadavg's "running/total" counts every thread, and each holds a pid.
  const tasks = procNumber('/proc/loadavg', /\s\d+\/(\d+)\s/);
  const availableBytes = procNumber('/proc/meminfo', /^MemAvailable:\s+(\d+) kB$/m) * 1024;
  if (tasks + more + PID_HEADROOM > pidMax)
    return {
      ok: false,
      why: `${tasks} tasks + ${more} more would leave under ${PID_HEADROOM} of pid_max ${pidMax} free`,
    };
  if (more * BYTES_PER_PROCESS > availableBytes)
    return {
      ok: false,
      why: `${more} processes need ~${Math.round((more * BYTES_PER_PROCESS) / 2 ** 20)} MiB, ${Math.round(availableBytes / 2 ** 20)} MiB available`,
    };
  return { ok: true };
}
