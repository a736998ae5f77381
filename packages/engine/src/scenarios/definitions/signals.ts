/**
 * Workers that make ending them hard: ignoring SIGTERM, trapping TERM and INT, leaving a zombie,
 * forking while being killed, and one that exits successfully in the instant its timeout fires.
 */
import { join } from 'node:path';
import { escalatedCheck, reportedCheck } from '../checks.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

const TIMEOUT_S = 2;
/** Short grace: these workers ignore SIGTERM, so the demo shows the escalation quickly. */
const SHORT_GRACE_S = 0.5;
/**
 * The worker aims its exit this far ahead of the deadline: on a busy machine the supervisor's
 * event loop then wakes with the timer due and the exit status already waiting, the race the
 * engine must call ok; a worker aiming later would sometimes really be late.
 */
const EXIT_LEAD_MS = 50;
const SMALL_BOUNDS = { maxProcesses: 6, maxMs: 30_000 } as const;
/** The fork loop: at most this many processes in all (fork-loop.sh stops at the cap). */
const FORK_LOOP_CAP = 60;
/** Each link forks one successor (a chain): it is still forking when the kill arrives. */
const FORK_LOOP_FANOUT = 1;

export const ignoreSigterm: ScenarioDefinition = {
  name: 'ignore-sigterm',
  title: 'A worker that ignores SIGTERM (escalation needed)',
  explanation:
    'The worker installs a SIGTERM handler that does nothing. A polite SIGTERM is received, logged and ignored; only SIGKILL ends it.',
  naiveFailure: 'Sends SIGTERM to the direct child and assumes it is done: the worker keeps running.',
  treewardenFix:
    'SIGTERM to the graceful roots, a bounded grace, then SIGKILL to every owned group, then a verification that every member is dead.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: SMALL_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('ignore-sigterm.mjs')],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: SHORT_GRACE_S,
  }),
  check: (evidence) => [
    reportedCheck(evidence, 'sigterm-ignored', 1, 'SIGTERM arrived and was ignored'),
    escalatedCheck(evidence),
  ],
};

export const trapTermInt: ScenarioDefinition = {
  name: 'trap-term-int',
  title: 'A worker and its child trap TERM and INT',
  explanation:
    'The worker and its child both install handlers for SIGTERM and SIGINT that log "trapped, carrying on". Ctrl-C and a polite kill are both swallowed, by the parent and by the child.',
  naiveFailure: 'Sends SIGTERM (or SIGINT, as Ctrl-C would) to the direct child: trapped; both processes run on.',
  treewardenFix:
    'Escalates to SIGKILL for every owned group after the grace and verifies both are dead; the traps show up in the captured stderr.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: SMALL_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('trap-term-int.mjs')],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: SHORT_GRACE_S,
  }),
  check: (evidence) => [
    reportedCheck(evidence, 'trapper-child', 1, 'the trapping child started'),
    escalatedCheck(evidence),
  ],
};

function zombieSeenCheck(evidence: ScenarioEvidence): ScenarioCheck {
  const zombies = evidence.seen.filter((process) => process.unreapedBy !== null);
  return {
    name: 'a zombie was observed under its live parent',
    ok: zombies.length > 0,
    detail:
      zombies.length > 0
        ? zombies.map((zombie) => `${zombie.pid} (parent ${zombie.unreapedBy} never reaped it)`).join(', ')
        : 'no process in state Z was seen under a live scenario parent',
  };
}

export const zombieParent: ScenarioDefinition = {
  name: 'zombie-parent',
  title: 'A parent that never reaps, leaving a zombie',
  explanation:
    'A child exits at once, but its parent never calls wait(): the child stays in the table as a zombie (state Z) until the parent dies and init reaps it. It uses no CPU or memory, yet its pid is still "there".',
  naiveFailure:
    'Treats the zombie as alive: kill(pid, 0) succeeds on it, so a tool waiting for every pid to vanish hangs, and one that reports survivors reports a process that has already ended.',
  treewardenFix:
    'Shows the zombie with the parent that has not reaped it, counts it as stopped, and ends the parent, after which init reaps the zombie.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: SMALL_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.fixture('zombie-parent.sh'),
    args: [],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: SHORT_GRACE_S,
  }),
  check: (evidence) => [reportedCheck(evidence, 'zombie-parent'), zombieSeenCheck(evidence)],
};

export const forkLoop: ScenarioDefinition = {
  name: 'fork-loop',
  title: 'A fork loop that spawns while it is being killed',
  explanation: `Every process forks a successor into its own session (setsid), so the tree keeps growing while it is being ended. It is bounded so it can never harm the machine: ${FORK_LOOP_CAP} processes in all, one successor each, every process exits by itself after the scenario's time bound.`,
  naiveFailure:
    'Kills the direct child; the rest of the chain, each link in its own session, keeps forking until its cap.',
  treewardenFix:
    'Re-reads the tree between signals and admits every new member through its still-owned parent or its run cookie; the kill is retried until a verification finds nothing alive.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: { maxProcesses: FORK_LOOP_CAP * 2 + 10, maxMs: 60_000 },
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.fixture('fork-loop.sh'),
    args: [join(ctx.dir, 'forks.count'), String(FORK_LOOP_CAP), String(FORK_LOOP_FANOUT), '--setsid'],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: SHORT_GRACE_S,
  }),
  check: (evidence) => [reportedCheck(evidence, 'fork-loop', 10, 'the loop was forking')],
};

export const exitAtTimeout: ScenarioDefinition = {
  name: 'exit-at-timeout',
  title: 'A worker that exits successfully in the same instant as its timeout',
  explanation:
    'The worker finishes its job and exits 0 at the very moment its timeout is due (and exits 0 too if the SIGTERM wins the race by a hair). The run succeeded; calling it a timeout would make a caller retry finished work.',
  naiveFailure: 'Sees its timer fire, kills, and reports a timeout for a run whose worker already succeeded.',
  treewardenFix:
    "When the timer fires it first checks whether the root's exit status is already there; a worker that exited 0 is classified ok.",
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: SMALL_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('exit-at.mjs'), String(Date.now() + TIMEOUT_S * 1000 - EXIT_LEAD_MS)],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: SHORT_GRACE_S,
  }),
  check: (evidence) => [
    {
      name: 'the worker exited 0',
      ok: evidence.outcome.exitCode === 0,
      detail: `exit code ${evidence.outcome.exitCode ?? 'none'}, signal ${evidence.outcome.signal ?? 'none'}`,
    },
  ],
};
