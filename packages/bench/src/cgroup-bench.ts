/**
 * The cgroup path beside polling (where a writable cgroup v2 exists). (1) The cost of one limit
 * check on a 100-process tree: polling (the table the refresh read) against the cgroup's files
 * (`cgroup.procs`, `cpu.stat`), each timed alone, as a share of the refresh. (2) A fork loop
 * passing --max-procs: time from the crossing (seen by a side sampler every few ms) to the run's
 * `stopping`, and how many processes over the limit the run observed, for each path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CgroupProbe,
  createLimitChecker,
  createLinuxReader,
  createRunCgroup,
  createTreeOwner,
  isZombie,
  killRunCgroup,
  ownedTreeRefresh,
  probeCgroup,
  type RunCgroup,
  readStatFields,
  removeRunCgroup,
  startRun,
} from '@treewarden/engine';
import { createLoad } from './pause-load.js';
import { formatMs, markdownTable, median, sleep } from './util.js';

const BRANCHES = 9;
const LEAVES = 10;
const TREE_SIZE = 1 + BRANCHES + BRANCHES * LEAVES;
const TREE_READY_MS = 30_000;
const REFRESHES = 200;
const CHECK_CALLS = 5_000;
/** Procs and CPU (what a cgroup counts exactly here), none reachable. */
const UNREACHABLE = { maxProcs: 60_000, maxCpuSeconds: 900_000 } as const;

const FORK_LOOP = fileURLToPath(import.meta.resolve('@treewarden/engine/fixtures/fork-loop.sh'));
/** Up to 80 processes, 4 children each, one fork per 50 ms per process; the limit is 20 live. */
const FORK_CAP = '80';
const FORK_FANOUT = '4';
const PROCS_LIMIT = 20;
const FORK_RUNS = 3;
const SAMPLER_INTERVAL_MS = 5;
const FORK_TIMEOUT_S = 60;
const FORK_ENV = { FORK_LOOP_LIFETIME_S: '60' };

type Parent = Extract<CgroupProbe, { available: true }>;

async function waitForTree(root: number): Promise<void> {
  const reader = createLinuxReader();
  const deadline = Date.now() + TREE_READY_MS;
  while (reader.snapshotTrees([root]).entries.size < TREE_SIZE) {
    if (Date.now() > deadline) throw new Error(`cgroup bench: tree of ${TREE_SIZE} not up in time`);
    await sleep(50);
  }
}

function timeCalls(call: () => unknown, calls: number): number {
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) call();
  return (performance.now() - started) / calls;
}

interface CheckCost {
  readonly refreshMs: number;
  readonly pollingMs: number;
  readonly cgroupMs: number;
}

/** Moves the load's tree into a bench cgroup (root may), then times each check alone on one refresh's table. */
async function measureCheckCost(parent: Parent): Promise<CheckCost> {
  const load = createLoad();
  let cgroup: RunCgroup | null = null;
  try {
    const rootPid = await load.start(BRANCHES, LEAVES);
    await waitForTree(rootPid);
    cgroup = createRunCgroup(parent, `bench-${process.pid}-${Date.now()}`);
    const reader = createLinuxReader();
    for (const pid of reader.snapshotTrees([rootPid]).entries.keys())
      writeFileSync(join(cgroup.path, 'cgroup.procs'), String(pid));
    const owner = createTreeOwner({ pid: rootPid, startTime: readStatFields(rootPid)?.startTicks ?? '0' }, { reader });
    await owner.observe();
    const refresh = ownedTreeRefresh(owner, reader);
    const started = performance.now();
    for (let i = 0; i < REFRESHES; i += 1) await refresh();
    const refreshMs = (performance.now() - started) / REFRESHES;
    const table = await refresh();
    const members = owner.members();
    const polling = createLimitChecker(UNREACHABLE, Date.now);
    const viaCgroup = createLimitChecker(UNREACHABLE, Date.now, cgroup);
    return {
      refreshMs,
      pollingMs: timeCalls(() => polling.check(table, members), CHECK_CALLS),
      cgroupMs: timeCalls(() => viaCgroup.check(table, members), CHECK_CALLS),
    };
  } finally {
    await load.end();
    if (cgroup !== null) {
      await killRunCgroup(cgroup.path);
      removeRunCgroup(cgroup.path);
    }
  }
}

interface TripResult {
  readonly classification: string;
  readonly overLimit: number;
  readonly crossingToStoppingMs: number;
}

function liveTreeSize(reader: ReturnType<typeof createLinuxReader>, pid: number): number {
  let live = 0;
  for (const entry of reader.snapshotTrees([pid]).entries.values()) if (!isZombie(entry)) live += 1;
  return live;
}

async function measureForkTrip(cgroup: boolean): Promise<TripResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-cgroup-bench-'));
  try {
    const run = startRun({
      command: FORK_LOOP,
      args: [join(dir, 'count'), FORK_CAP, FORK_FANOUT],
      timeoutSeconds: FORK_TIMEOUT_S,
      graceSeconds: 0.5,
      env: FORK_ENV,
      limits: { maxProcs: PROCS_LIMIT },
      cgroup,
    });
    const reader = createLinuxReader();
    let crossingAtMs: number | null = null;
    let stoppingAtMs: number | null = null;
    run.subscribe((event) => {
      if (event.type === 'phase' && event.phase === 'stopping') stoppingAtMs ??= performance.now();
    });
    const sampler = setInterval(() => {
      if (crossingAtMs !== null || run.identity === null) return;
      if (liveTreeSize(reader, run.identity.pid) > PROCS_LIMIT) crossingAtMs = performance.now();
    }, SAMPLER_INTERVAL_MS);
    const outcome = await run.outcome;
    clearInterval(sampler);
    return {
      classification: outcome.classification,
      overLimit: (outcome.limit?.observed ?? Number.NaN) - PROCS_LIMIT,
      crossingToStoppingMs: crossingAtMs !== null && stoppingAtMs !== null ? stoppingAtMs - crossingAtMs : Number.NaN,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The cgroup section of the limits bench, as markdown; says why when there is no cgroup here. */
export async function runCgroupBench(): Promise<string> {
  const parent = probeCgroup();
  if (!parent.available) return `_cgroup path skipped: ${parent.reason}._`;
  const cost = await measureCheckCost(parent);
  const percent = (ms: number) => `${((ms / cost.refreshMs) * 100).toFixed(2)} %`;
  const costTable = markdownTable(
    ['one check (max-procs + max-cpu), 100-process tree', 'µs', 'share of the refresh'],
    [
      ['polling (the refresh’s table)', (cost.pollingMs * 1000).toFixed(1), percent(cost.pollingMs)],
      ['cgroup (cgroup.procs + cpu.stat)', (cost.cgroupMs * 1000).toFixed(1), percent(cost.cgroupMs)],
    ],
  );
  const rows: string[][] = [];
  for (const cgroup of [false, true]) {
    const trips: TripResult[] = [];
    for (let i = 0; i < FORK_RUNS; i += 1) trips.push(await measureForkTrip(cgroup));
    rows.push([
      cgroup ? 'cgroup' : 'polling',
      trips.map((t) => t.classification).join(', '),
      median(trips.map((t) => t.overLimit)).toFixed(0),
      median(trips.map((t) => t.crossingToStoppingMs)).toFixed(0),
    ]);
  }
  const tripTable = markdownTable(
    ['max-procs path', 'classifications', 'observed − limit (median)', 'crossing → stopping, ms (median)'],
    rows,
  );
  return [
    `cgroup parent: \`${parent.path}\` (controllers: ${parent.controllers.join(' ') || 'none'}). Refresh of the 100-process tree: ${formatMs(cost.refreshMs)} ms.`,
    costTable,
    `Fork loop (fan-out ${FORK_FANOUT}, one fork per 50 ms per process) against max-procs ${PROCS_LIMIT}, ${FORK_RUNS} runs per path; the crossing is seen by a side sampler every ${SAMPLER_INTERVAL_MS} ms.`,
    tripTable,
  ].join('\n\n');
}
