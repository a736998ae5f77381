/**
 * Treewarden mode: the scenario's worker runs under the engine's run supervisor (or the caller's
 * lease), which enforces the timeout, ends the whole tree and classifies the outcome. The
 * narration follows the run's events and, once it ended, the kill's own timeline.
 */
import type { KillOutcome } from '../kill/types.js';
import type { RunOutcome, RunSpec } from '../run/types.js';
import type { Session } from './session.js';
import type { ScenarioOutcomeFacts, WorkerPlan } from './types.js';

export function planToSpec(session: Session, plan: WorkerPlan): RunSpec {
  return {
    command: plan.command,
    args: [...plan.args],
    cwd: session.sandbox.dir,
    env: { ...session.sandbox.env, ...plan.env },
    timeoutSeconds: plan.timeoutSeconds,
    ...(plan.graceSeconds === undefined ? {} : { graceSeconds: plan.graceSeconds }),
    runId: session.sandbox.runId,
    output: plan.output ?? 'capture',
    ...(plan.limits === undefined ? {} : { limits: plan.limits }),
  };
}

/** Ids shown per timeline step; a fork loop's hundred groups are summarised. */
const MAX_IDS_SHOWN = 8;

function listIds(label: string, ids: readonly number[] | undefined): string {
  if (ids === undefined || ids.length === 0) return '';
  if (ids.length <= MAX_IDS_SHOWN) return `${label} ${ids.join(' ')}`;
  return `${label} ${ids.slice(0, MAX_IDS_SHOWN).join(' ')} … (${ids.length} in all)`;
}

/** Puts the kill's timeline into the scenario's time frame, one step per entry. */
export function narrateKill(session: Session, kill: KillOutcome): void {
  const offset = kill.startedAtMs - session.sandbox.startedAtMs;
  for (const entry of kill.timeline) {
    const pids = listIds(' pids', entry.pids);
    const groups = listIds(' groups', entry.groups);
    const detail = entry.detail === undefined ? '' : ` — ${entry.detail}`;
    session.stepAt(offset + entry.atMs, `kill: ${entry.action}${pids}${groups}${detail}`);
  }
}

export function outcomeFacts(outcome: RunOutcome): ScenarioOutcomeFacts {
  return {
    classification: outcome.classification,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    stdoutTail: outcome.stdoutTail,
    stderrTail: outcome.stderrTail,
    durationMs: outcome.durationMs,
    killTimeline: outcome.kill?.timeline ?? [],
    leftovers: outcome.leftovers.length,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

function describeEnd(outcome: RunOutcome): string {
  const how = outcome.signal !== null ? `signal ${outcome.signal}` : `exit code ${outcome.exitCode ?? '?'}`;
  const leftovers = outcome.leftovers.length > 0 ? `, ${outcome.leftovers.length} leftover(s) ended` : '';
  const survivors = outcome.survivors.length > 0 ? `, ${outcome.survivors.length} SURVIVOR(S)` : '';
  return `run ended: ${outcome.classification} (root ${how}${leftovers}${survivors}, ${outcome.durationMs} ms)`;
}

/** Runs one supervised worker to its end; the outcome never rejects. */
export async function runSupervised(session: Session, plan: WorkerPlan): Promise<RunOutcome> {
  const spec = planToSpec(session, plan);
  session.step(
    `start ${session.sandbox.mode === 'naive' ? '(the worker plays the naive part itself)' : 'under Treewarden'}: ${[plan.command, ...plan.args].map(shortName).join(' ')} (timeout ${plan.timeoutSeconds} s)`,
  );
  const run = session.startRun(spec);
  let announced = false;
  const announce = (pid: number): void => {
    if (!announced) session.step(`worker spawned: pid ${pid} in its own session`);
    announced = true;
  };
  // A local run spawns inside startRun (before we can subscribe); a leased one reports later.
  if (run.identity !== null) announce(run.identity.pid);
  const narrateStderr = stderrNarrator(session);
  const unsubscribe = run.subscribe((event) => {
    if (event.type === 'spawned') announce(event.identity.pid);
    else if (event.type === 'phase' && event.phase === 'stopping') {
      // The 'stopping' phase is raised synchronously before the first signal: one census now sees
      // the tree exactly as the kill finds it, however late the periodic census ran on a busy
      // machine (a zombie that lives until its parent is signalled is then always witnessed).
      pollBeforeKill(session);
      session.step('ending the whole tree');
    } else if (event.type === 'output' && event.stream === 'stderr') narrateStderr(event.text);
  });
  const outcome = await run.outcome;
  unsubscribe();
  if (outcome.kill !== undefined) narrateKill(session, outcome.kill);
  session.step(describeEnd(outcome));
  return outcome;
}

function pollBeforeKill(session: Session): void {
  try {
    session.watch.poll();
  } catch {
    // A racing /proc read: the periodic census still runs.
  }
}

/** Stderr lines narrated at most; the rest is in the outcome's tail. */
const MAX_STDERR_STEPS = 12;
const MAX_STDERR_LINE_CHARS = 160;

/** Turns the worker's stderr into steps, line by line, bounded (a flood must not flood the narration). */
function stderrNarrator(session: Session): (text: string) => void {
  let pending = '';
  let narrated = 0;
  return (text) => {
    pending += text;
    const lines = pending.split('\n');
    pending = (lines.pop() ?? '').slice(-MAX_STDERR_LINE_CHARS);
    for (const line of lines) {
      if (line.trim().length === 0) continue;
      narrated += 1;
      if (narrated <= MAX_STDERR_STEPS) session.step(`worker stderr: ${line.slice(0, MAX_STDERR_LINE_CHARS)}`);
      else if (narrated === MAX_STDERR_STEPS + 1) session.step('worker stderr: … (more in the outcome)');
    }
  };
}

function shortName(word: string): string {
  return word.startsWith('/') ? word.slice(word.lastIndexOf('/') + 1) : word;
}
