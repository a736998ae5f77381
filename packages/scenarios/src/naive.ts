/**
 * Naive mode: the same worker, ended the way most tools end it. `direct-child` sends SIGTERM to
 * the pid it spawned and nothing else (what `child.kill()` does); `tree-walk` walks the ppid tree
 * from the root at kill time and SIGTERMs what it finds, as `tree-kill` does, so everything that
 * was reparented away (or whose root already exited) is missed. What survives is shown, then the
 * engine cleans it up.
 */
import { spawn } from 'node:child_process';
import { createOutputTail, pollUntil, RUN_ID_ENV, readProcTable } from '@treewarden/engine';
import type { Session } from './session.js';
import type { ScenarioOutcomeFacts, WorkerPlan } from './types.js';

/** After its kill, the naive tool waits this long for the root to go before it looks around. */
export const NAIVE_SETTLE_MS = 1000;
const NAIVE_POLL_MS = 50;

interface RootExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** `tree-kill`'s walk: descendants of `rootPid` by ppid, as the table shows them right now. */
export function walkTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readProcTable().entries.values()) {
    const siblings = children.get(entry.ppid) ?? [];
    siblings.push(entry.pid);
    children.set(entry.ppid, siblings);
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function sendQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // ESRCH: already gone.
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return (await pollUntil(predicate, { deadlineMs: timeoutMs, intervalMs: NAIVE_POLL_MS, signal })) !== null;
}

function naiveKill(session: Session, rootPid: number, rootAlive: boolean): void {
  if (session.definition.naive === 'tree-walk') {
    const walked = walkTree(rootPid);
    const targets = rootAlive ? [rootPid, ...walked] : walked;
    session.step(
      `naive kill (tree-kill style): walk the ppid tree from ${rootPid}${rootAlive ? '' : ' (already exited)'}: found ${
        walked.length === 0 ? 'no descendants' : walked.join(' ')
      }; SIGTERM ${targets.length === 0 ? 'nothing' : targets.join(' ')}`,
    );
    for (const pid of targets) sendQuietly(pid, 'SIGTERM');
    return;
  }
  if (!rootAlive) {
    session.step(`naive kill: the direct child ${rootPid} already exited; nothing to kill`);
    return;
  }
  session.step(`naive kill: SIGTERM to the direct child ${rootPid} only`);
  sendQuietly(rootPid, 'SIGTERM');
}

/** Runs the worker naively; returns what the naive tool would have reported. */
export async function runNaive(session: Session, plan: WorkerPlan): Promise<ScenarioOutcomeFacts> {
  const { sandbox } = session;
  const startedAt = Date.now();
  const child = spawn(plan.command, [...plan.args], {
    cwd: sandbox.dir,
    // The cookie is there only so the engine's cleanup can find what the naive tool leaves.
    env: { ...process.env, ...sandbox.env, ...plan.env, [RUN_ID_ENV]: sandbox.runId },
    // Its own group: a naive tool's Ctrl-C must not be what ends the worker in this demo.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = createOutputTail();
  const stderr = createOutputTail();
  // A naive tool that never reads stdout leaves the worker blocked once the pipe buffer is full.
  if (session.definition.naiveReadsOutput !== false) child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  let exit: RootExit | null = null;
  child.on('exit', (exitCode, signal) => {
    exit = { exitCode, signal };
  });
  child.on('error', () => {
    exit = { exitCode: null, signal: null };
  });
  const rootPid = child.pid ?? 0;
  session.step(`start naively: pid ${rootPid}, the only pid the naive tool remembers`);
  if (session.definition.naiveReadsOutput === false) session.step("the naive tool never reads the worker's stdout");
  const timeoutMs = plan.timeoutSeconds * 1000;
  await waitUntil(() => exit !== null, timeoutMs, session.abort.signal);
  const rootAlive = exit === null;
  session.step(rootAlive ? `timeout after ${plan.timeoutSeconds} s` : 'the root exited on its own');
  if (rootPid > 0) naiveKill(session, rootPid, rootAlive);
  await waitUntil(() => exit !== null, NAIVE_SETTLE_MS, session.abort.signal);
  const ended: RootExit = exit ?? { exitCode: null, signal: null };
  const [stdoutTail, stderrTail] = [stdout.finish(), stderr.finish()];
  // Unread pipes must not keep this process busy once the demo moved on.
  child.stdout?.destroy();
  child.stderr?.destroy();
  // The naive tool knows exit codes only: anything but a clean exit is a generic error.
  const cleanExit = ended.exitCode === 0 && ended.signal === null;
  const classification = rootAlive ? 'timeout' : cleanExit ? 'ok' : 'error';
  session.step(
    exit === null
      ? `the naive tool gives up: the direct child ${rootPid} is still running`
      : `the naive tool reports: ${classification} (${ended.signal ?? `exit ${ended.exitCode}`})`,
  );
  return {
    classification,
    exitCode: ended.exitCode,
    signal: ended.signal,
    stdoutTail,
    stderrTail,
    durationMs: Date.now() - startedAt,
    killTimeline: [],
    leftovers: 0,
  };
}
