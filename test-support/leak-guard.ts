/**
 * Suite-wide leak guard. Every process the tests start inherits TREEWARDEN_TEST_SUITE; when the
 * suite ends, any process still carrying it leaked. The guard ends those leftovers by the pids it
 * recorded and fails the run, so a leak is never silent.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { pollUntil } from './poll-until.js';

/** Exiting workers get this long to finish dying before the guard judges them leaked. */
const LEAK_SETTLE_MS = 3000;
const LEAK_POLL_MS = 100;

export const SUITE_ENV = 'TREEWARDEN_TEST_SUITE';

function findCarriers(marker: string): number[] {
  const carriers: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (environ.split('\0').includes(marker)) carriers.push(pid);
    } catch {
      // Gone, or a zombie whose environ is no longer readable: nothing to end.
    }
  }
  return carriers;
}

function describe(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}

export default function setup(): () => Promise<void> {
  const marker = `${SUITE_ENV}=${randomUUID()}`;
  process.env[SUITE_ENV] = marker.slice(SUITE_ENV.length + 1);
  return async () => {
    if (process.platform !== 'linux') return;
    // Give exiting workers a bounded moment to finish dying before judging.
    const settled = await pollUntil(() => findCarriers(marker).length === 0, {
      deadlineMs: LEAK_SETTLE_MS,
      intervalMs: LEAK_POLL_MS,
      description: "the suite's processes to exit",
    }).catch(() => false);
    if (settled) return;
    const carriers = findCarriers(marker);
    if (carriers.length === 0) return;
    const described = carriers.map(describe);
    for (const pid of carriers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // vitest logs but does not fail on a teardown error, so set the exit status ourselves.
    process.exitCode = 1;
    throw new Error(`Leak guard: ${carriers.length} test process(es) survived the suite:\n${described.join('\n')}`);
  };
}
