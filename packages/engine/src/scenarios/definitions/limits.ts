/**
 * Runaway workers that a timeout alone catches late: a memory balloon, a fork bomb, a spinning
 * core and a silent hang. Each offender hides in its own session; each run carries the limit that
 * catches it long before its timeout, and every one is bounded (memory, processes, time) so the
 * demo can never harm the machine.
 */
import { join } from 'node:path';
import type { LimitName } from '../../run/limits.js';
import { reportedCheck } from '../checks.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

/** Only for the naive tool, which has nothing else: the limits trip within a few seconds. */
const TIMEOUT_S = 20;
const GRACE_S = 0.5;
const MIB = 1024 * 1024;
/** The balloon: 16 MiB every 50 ms (320 MiB/s), never past 640 MiB; the limit is 256 MiB. */
const BALLOON_ARGS = ['16', '50', '640'];
const BALLOON_LIMIT_BYTES = 256 * MIB;
/** The fork bomb: at most 40 processes, 4 forks each, every one in its own session; limit 8. */
const FORK_BOMB_CAP = 40;
const FORK_BOMB_FANOUT = 4;
const FORK_BOMB_LIMIT = 8;
const CPU_LIMIT_S = 2;
const IDLE_LIMIT_S = 2;
const LIMIT_BOUNDS = { maxProcesses: 8, maxMs: 45_000 } as const;

/** The run was ended by this limit, and the outcome says so in words. */
function limitNamedCheck(name: LimitName): (evidence: ScenarioEvidence) => ScenarioCheck {
  return (evidence) => ({
    name: `the outcome names ${name}`,
    ok: evidence.ctx.mode === 'naive' || (evidence.outcome.error ?? '').includes(name),
    detail: evidence.outcome.error ?? 'no error text',
  });
}

export const memoryBalloon: ScenarioDefinition = {
  name: 'memory-balloon',
  title: 'A memory balloon in a grandchild in its own session',
  explanation:
    'A worker starts a child in its own session that allocates and touches 16 MiB every 50 ms (bounded at 640 MiB here; real ones reach 8 GB dev servers and 10 GB subagent piles). The tree’s resident memory is the sum of its members’.',
  naiveFailure:
    'Has only a timeout: the balloon keeps growing until the timer fires, then SIGTERM to the direct child leaves the grandchild holding all its memory.',
  treewardenFix: `Sums the RSS of every owned member on each tree refresh (no extra reads); past --max-memory ${BALLOON_LIMIT_BYTES / MIB}M the whole tree is ended with the same kill, classified memory_limit.`,
  expected: { classification: 'memory_limit', nothingSurvives: true },
  bounds: LIMIT_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: process.execPath,
    args: [ctx.fixture('balloon.mjs'), '--setsid', ...BALLOON_ARGS],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: GRACE_S,
    limits: { maxMemoryBytes: BALLOON_LIMIT_BYTES },
  }),
  check: (evidence) => [reportedCheck(evidence, 'balloon'), limitNamedCheck('max-memory')(evidence)],
};

export const forkBomb: ScenarioDefinition = {
  name: 'fork-bomb',
  title: 'A bounded fork bomb, every process in its own session',
  explanation: `Every process forks ${FORK_BOMB_FANOUT} copies of itself into new sessions (setsid). Bounded: ${FORK_BOMB_CAP} processes in all, each exits by itself after a minute.`,
  naiveFailure:
    'Waits for its timeout, then kills the direct child: the copies, each in its own session, keep forking.',
  treewardenFix: `Counts the live owned members on each refresh; past --max-procs ${FORK_BOMB_LIMIT} it freezes and ends the whole tree, classified process_limit.`,
  expected: { classification: 'process_limit', nothingSurvives: true },
  bounds: { maxProcesses: FORK_BOMB_CAP + 10, maxMs: 45_000 },
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.fixture('fork-loop.sh'),
    args: [join(ctx.dir, 'forks.count'), String(FORK_BOMB_CAP), String(FORK_BOMB_FANOUT), '--setsid'],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: GRACE_S,
    limits: { maxProcs: FORK_BOMB_LIMIT },
  }),
  check: (evidence) => [
    reportedCheck(evidence, 'fork-loop', FORK_BOMB_LIMIT + 1, 'the bomb passed the limit'),
    limitNamedCheck('max-procs')(evidence),
  ],
};

export const cpuSpin: ScenarioDefinition = {
  name: 'cpu-spin',
  title: 'A grandchild spinning a core',
  explanation: 'A worker starts a child in its own session that spins a busy loop: one core at 100 %, forever.',
  naiveFailure: 'Has only a timeout: a core burns until it fires, and the spinning grandchild outlives the kill.',
  treewardenFix: `Adds up the tree’s CPU time (utime+stime+cutime+cstime, members that exited included) on each refresh; past --max-cpu ${CPU_LIMIT_S} s the tree is ended, classified cpu_limit.`,
  expected: { classification: 'cpu_limit', nothingSurvives: true },
  bounds: LIMIT_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: process.execPath,
    args: [ctx.fixture('cpu-spin.mjs'), '--setsid'],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: GRACE_S,
    limits: { maxCpuSeconds: CPU_LIMIT_S },
  }),
  check: (evidence) => [reportedCheck(evidence, 'spinner'), limitNamedCheck('max-cpu')(evidence)],
};

export const silentHang: ScenarioDefinition = {
  name: 'silent-hang',
  title: 'A worker that goes silent (stuck on a prompt nobody answers)',
  explanation:
    'The worker prints some progress, starts a child in its own session, then waits forever without a word, like an agent waiting for input that will never come.',
  naiveFailure: 'Waits the whole timeout for a worker that stopped working long ago, then leaves its child behind.',
  treewardenFix: `Notes the time of every stdout/stderr chunk; after --idle-timeout ${IDLE_LIMIT_S} s of silence it ends the tree, classified stalled.`,
  expected: { classification: 'stalled', nothingSurvives: true },
  bounds: LIMIT_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: process.execPath,
    args: [ctx.fixture('silent-hang.mjs')],
    timeoutSeconds: TIMEOUT_S,
    graceSeconds: GRACE_S,
    limits: { idleTimeoutSeconds: IDLE_LIMIT_S },
  }),
  check: (evidence) => [reportedCheck(evidence, 'hang'), limitNamedCheck('idle-timeout')(evidence)],
};
