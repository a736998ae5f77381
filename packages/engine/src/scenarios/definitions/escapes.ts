/**
 * Workers whose descendants outlive the process a naive tool knows about: a heartbeat grandchild,
 * a setsid escape, a double-fork daemon, a nohup'd and disowned child.
 */
import { join } from 'node:path';
import { escapedCheck, heartbeatQuietCheck, reportedCheck } from '../checks.js';
import type { ScenarioDefinition } from '../types.js';

/** Node start-up on a busy 2-core machine: three generations must be up well before the timeout. */
const CHAIN_TIMEOUT_S = 3;
/** run-forever dies on SIGTERM at once; the grace only matters when something ignores it. */
const QUICK_GRACE_S = 1;
const ESCAPE_BOUNDS = { maxProcesses: 8, maxMs: 30_000 } as const;
const HEARTBEAT_FILE = 'heartbeat.log';

export const grandchildHeartbeat: ScenarioDefinition = {
  name: 'grandchild-heartbeat',
  title: 'A grandchild keeps writing a heartbeat after its parent is killed',
  explanation:
    'The worker starts a child, which starts a grandchild that appends a heartbeat to a file every 50 ms. ' +
    'When the worker is killed, nothing tells its descendants: they are reparented and carry on, and the ' +
    'heartbeat file keeps growing long after the run "ended".',
  naiveFailure:
    'Kills only the direct child it spawned (child.kill()). The child and the grandchild survive; the heartbeat never stops.',
  treewardenFix:
    'Observes the whole tree by ancestry while the run is alive and remembers every member by (pid, start time), so on timeout it ends all three generations and verifies the heartbeat went quiet.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: ESCAPE_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [
      ctx.fixture('spawn-children.mjs'),
      '1',
      'spawn-children.mjs',
      '1',
      'heartbeat.mjs',
      join(ctx.dir, HEARTBEAT_FILE),
    ],
    timeoutSeconds: CHAIN_TIMEOUT_S,
    graceSeconds: QUICK_GRACE_S,
  }),
  check: async (evidence) => [
    reportedCheck(evidence, 'heartbeat'),
    await heartbeatQuietCheck(join(evidence.ctx.dir, HEARTBEAT_FILE)),
  ],
};

export const setsidEscape: ScenarioDefinition = {
  name: 'setsid-escape',
  title: 'A child escapes into its own session (setsid)',
  explanation:
    'The worker starts a child with setsid: a new session and process group. Killing the worker, or even ' +
    "its whole process group, does not touch the child, which is no longer in the worker's group.",
  naiveFailure: 'Kills the direct child only (a group kill would miss it too): the escaped child runs on.',
  treewardenFix:
    'Owns members by ancestry and by the run cookie (TREEWARDEN_RUN_ID in the environment, inherited across setsid), signals every owned group, deepest first, and verifies each member is dead.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: ESCAPE_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('setsid-escape.mjs')],
    timeoutSeconds: CHAIN_TIMEOUT_S,
    graceSeconds: QUICK_GRACE_S,
  }),
  check: (evidence) => [reportedCheck(evidence, 'escaped'), escapedCheck(evidence)],
};

export const doubleForkDaemon: ScenarioDefinition = {
  name: 'double-fork-daemon',
  title: 'A double-fork daemon reparented to pid 1',
  explanation:
    'The worker forks a middle process that starts a session, forks the daemon and exits at once. The ' +
    'daemon is reparented to pid 1 (or a subreaper): no ppid chain leads from the worker to it any more.',
  naiveFailure:
    "Walks the ppid tree from the worker, as tree-kill does: the daemon's parent is pid 1, so the walk never finds it and it survives.",
  treewardenFix:
    'Saw the daemon while the middle process was still its parent, and finds it again by its run cookie; the kill reaches it in its own session and verifies it dead.',
  expected: { classification: 'timeout', nothingSurvives: true },
  bounds: ESCAPE_BOUNDS,
  naive: 'tree-walk',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('double-fork.mjs')],
    timeoutSeconds: CHAIN_TIMEOUT_S,
    graceSeconds: QUICK_GRACE_S,
  }),
  check: (evidence) => [reportedCheck(evidence, 'daemon'), escapedCheck(evidence)],
};

export const nohupDisown: ScenarioDefinition = {
  name: 'nohup-disown',
  title: 'nohup + disown: the worker exits 0 and leaves a child that ignores SIGHUP',
  explanation:
    'A shell worker starts a child under nohup (immune to SIGHUP), disowns it and exits successfully at ' +
    'once. The run looks finished, but its child is reparented and keeps running; closing the terminal would not end it either.',
  naiveFailure:
    'Sees the worker exit 0 and reports success; a tree-kill-style walk after the root died finds no descendants, so the nohup child survives.',
  treewardenFix:
    'When the root exits it re-reads the tree: descendants left behind are ended with the same revalidated kill and listed as leftovers; the run is still classified ok.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: ESCAPE_BOUNDS,
  naive: 'tree-walk',
  worker: (ctx) => ({
    command: ctx.fixture('nohup-disown.sh'),
    args: [],
    timeoutSeconds: CHAIN_TIMEOUT_S,
    graceSeconds: QUICK_GRACE_S,
  }),
  check: (evidence) => [
    reportedCheck(evidence, 'nohup-parent'),
    {
      name: 'leftovers ended',
      ok: evidence.ctx.mode === 'naive' || evidence.outcome.leftovers > 0,
      detail: `${evidence.outcome.leftovers} leftover(s) reported in the outcome`,
    },
  ],
};
