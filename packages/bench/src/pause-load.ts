/**
 * Process load for the benchmarks: groups of forked shells started by the pause-tree fixture,
 * each group in its own session, blocked reading a pipe this process holds. They end when the
 * groups recorded at spawn are SIGKILLed (never by name), and by themselves when this process
 * dies in any way, because the pipe then closes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Bound on starting one group (forking thousands of shells on a busy 2-core machine is slow). */
export const LOAD_READY_MS = 120_000;
/** Bound on waiting for ended groups to disappear. */
export const LOAD_EXIT_WAIT_MS = 30_000;
/** Parallel spawners for a large flat load: forking is CPU-bound, so use the whole machine. */
export const LOAD_SPAWNERS = 8;
const POLL_MS = 50;

const PAUSE_TREE = fileURLToPath(new URL('../fixtures/pause-tree.sh', import.meta.url));

export interface Load {
  /** Starts `branches` shells of `leaves` pausers (0 branches: `leaves` directly); resolves with the root pid. */
  start(branches: number, leaves: number): Promise<number>;
  /** Starts `count` pausers split over LOAD_SPAWNERS flat groups. */
  startFlat(count: number): Promise<void>;
  /** SIGKILLs every group started and waits, bounded, for them to be gone. */
  end(): Promise<void>;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function createLoad(): Load {
  const children: ChildProcess[] = [];
  const groups: number[] = [];
  const killAll = (): void => {
    for (const pgid of groups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    killAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', killAll);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const start = (branches: number, leaves: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const args = [PAUSE_TREE, String(branches), String(leaves)];
      // fd 3 is the pipe every pauser blocks on; it is never written.
      const child = spawn('/bin/sh', args, { detached: true, stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
      if (child.pid === undefined) return reject(new Error('load: could not start /bin/sh'));
      const pid = child.pid;
      children.push(child);
      groups.push(pid);
      const timer = setTimeout(
        () => reject(new Error(`load: ${leaves} pausers not up within ${LOAD_READY_MS} ms`)),
        LOAD_READY_MS,
      );
      child.stdout?.once('data', () => {
        clearTimeout(timer);
        resolve(pid);
      });
      child.once('error', reject);
    });

  return {
    start,
    async startFlat(count) {
      const share = Math.ceil(count / LOAD_SPAWNERS);
      await Promise.all(Array.from({ length: LOAD_SPAWNERS }, () => start(0, share)));
    },
    async end() {
      killAll();
      for (const child of children) child.stdio[3]?.destroy();
      const deadline = Date.now() + LOAD_EXIT_WAIT_MS;
      while (groups.some(groupExists) && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
      process.off('exit', killAll);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
