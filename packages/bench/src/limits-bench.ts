/**
 * Limits benchmark. (1) What checking the limits adds to the owned-tree refresh: the run's own
 * refresh (`ownedTreeRefresh`) on a 100-process tree, with and without the limit check, timed in
 * the same run, interleaved, as a ratio. (2) How far a balloon growing ~100 MB/s gets past its
 * max-memory before the run stops it: a side sampler reads the tree's RSS every few ms, so the
 * crossing is seen independently of the run's own refresh; the overshoot is reported in MB (what
 * the run observed at the trip, over the limit) and ms (crossing → the run's `stopping`).
 */
import { fileURLToPath } from 'node:url';
import type { RunOutcome } from '@treewarden/engine';
import {
  createLimitChecker,
  createLinuxReader,
  createTreeOwner,
  ownedTreeRefresh,
  RUN_POLL_INTERVAL_MS,
  readStatFields,
  startRun,
} from '@treewarden/engine';
import { runCgroupBench } from './cgroup-bench.js';
import { createLoad } from './pause-load.js';
import { formatMs, formatRatio, markdownTable, median, sleep } from './util.js';

const OWNED_BRANCHES = 9;
const OWNED_LEAVES = 10;
const OWNED_SIZE = 1 + OWNED_BRANCHES + OWNED_BRANCHES * OWNED_LEAVES;
const OWNED_READY_MS = 30_000;
/** Refreshes per timed sample (one refresh is a few ms: a sample of many is above timer noise). */
const REFRESHES_PER_SAMPLE = 20;
const CHECK_ROUNDS = 31;
/** The check alone, on one refresh's table: many calls, since one takes microseconds. */
const CHECK_ALONE_CALLS = 5_000;
/** Every limit set, none reachable: the check runs in full and never trips. */
const UNREACHABLE_LIMITS = {
  maxMemoryBytes: 1024 ** 4,
  maxProcs: 60_000,
  maxCpuSeconds: 900_000,
  idleTimeoutSeconds: 5_000,
} as const;
const TARGET_CHECK_OVERHEAD = 0.1;

const MB = 1_000_000;
const MIB = 1024 * 1024;
const BALLOON = fileURLToPath(import.meta.resolve('@treewarden/engine/fixtures/balloon.mjs'));
/** 5 MiB every 50 ms ≈ 105 MB/s, capped at 1.5 GiB; the limit sits well above the node processes' own ~80 MB. */
const BALLOON_ARGS = ['--setsid', '5', '50', '1536'];
const BALLOON_LIMIT_BYTES = 400 * MIB;
const BALLOON_RUNS = 5;
const SAMPLER_INTERVAL_MS = 5;
const BALLOON_TIMEOUT_S = 60;
/** The fixture caps its own lifetime: a bench killed mid-run leaves no balloon for long. */
const FIXTURE_LIFETIME_ENV = { TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: '60000' };

async function waitForOwnedTree(root: number): Promise<void> {
  const reader = createLinuxReader();
  const deadline = Date.now() + OWNED_READY_MS;
  while (reader.snapshotTrees([root]).entries.size < OWNED_SIZE) {
    if (Date.now() > deadline) throw new Error(`limits bench: owned tree of ${OWNED_SIZE} not up in time`);
    await sleep(50);
  }
}

/** Median ms per refresh, without and with the limit check, over interleaved rounds. */
interface CheckOverhead {
  readonly plain: number;
  readonly checked: number;
  /** Median over rounds of checked / plain in the same round: drift on a shared machine cancels. */
  readonly pairedRatio: number;
  readonly alone: number;
}

async function measureCheckOverhead(rootPid: number): Promise<CheckOverhead> {
  const root = { pid: rootPid, startTime: readStatFields(rootPid)?.startTicks ?? '0' };
  const reader = createLinuxReader();
  const owner = createTreeOwner(root, { reader });
  await owner.observe();
  const refresh = ownedTreeRefresh(owner, reader);
  const checker = createLimitChecker(UNREACHABLE_LIMITS, Date.now);
  // Both variants do what the observe loop does each tick (refresh, then the members list it
  // compares); the second adds the limit check on that table and list.
  const variants = {
    plain: async () => {
      await refresh();
      owner.members();
    },
    checked: async () => {
      const table = await refresh();
      if (checker.check(table, owner.members()) !== null) throw new Error('limits bench: an unreachable limit tripped');
    },
  };
  const samples = { plain: [] as number[], checked: [] as number[] };
  for (let round = 0; round < CHECK_ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (['plain', 'checked'] as const) : (['checked', 'plain'] as const);
    for (const name of order) {
      const started = performance.now();
      for (let i = 0; i < REFRESHES_PER_SAMPLE; i += 1) await variants[name]();
      samples[name].push((performance.now() - started) / REFRESHES_PER_SAMPLE);
    }
  }
  const table = await refresh();
  const members = owner.members();
  const started = performance.now();
  for (let i = 0; i < CHECK_ALONE_CALLS; i += 1) checker.check(table, members);
  const alone = (performance.now() - started) / CHECK_ALONE_CALLS;
  const ratios = samples.plain.map((plain, round) => (samples.checked[round] ?? Number.NaN) / plain);
  return { plain: median(samples.plain), checked: median(samples.checked), pairedRatio: median(ratios), alone };
}

interface BalloonResult {
  readonly rateMBps: number;
  readonly overshootMB: number;
  readonly overshootMs: number;
  readonly classification: string;
}

/** RSS of `pid` and its live descendants, read independently of the run. */
function treeRss(reader: ReturnType<typeof createLinuxReader>, pid: number): number {
  let total = 0;
  for (const entry of reader.snapshotTrees([pid]).entries.values()) total += entry.rssBytes;
  return total;
}

async function measureBalloon(): Promise<BalloonResult> {
  const run = startRun({
    command: process.execPath,
    args: [BALLOON, ...BALLOON_ARGS],
    timeoutSeconds: BALLOON_TIMEOUT_S,
    graceSeconds: 0.5,
    env: FIXTURE_LIFETIME_ENV,
    limits: { maxMemoryBytes: BALLOON_LIMIT_BYTES },
  });
  const reader = createLinuxReader();
  const samples: { atMs: number; bytes: number }[] = [];
  let stoppingAtMs: number | null = null;
  run.subscribe((event) => {
    if (event.type === 'phase' && event.phase === 'stopping') stoppingAtMs ??= performance.now();
  });
  const sampler = setInterval(() => {
    if (stoppingAtMs !== null || run.identity === null) return;
    samples.push({ atMs: performance.now(), bytes: treeRss(reader, run.identity.pid) });
  }, SAMPLER_INTERVAL_MS);
  const outcome: RunOutcome = await run.outcome;
  clearInterval(sampler);
  const crossing = samples.find((sample) => sample.bytes > BALLOON_LIMIT_BYTES);
  const first = samples.find((sample) => sample.bytes > 150 * MIB);
  const rate =
    crossing !== undefined && first !== undefined && crossing.atMs > first.atMs
      ? (crossing.bytes - first.bytes) / MB / ((crossing.atMs - first.atMs) / 1000)
      : Number.NaN;
  return {
    rateMBps: rate,
    overshootMB: ((outcome.limit?.observed ?? Number.NaN) - BALLOON_LIMIT_BYTES) / MB,
    overshootMs: crossing !== undefined && stoppingAtMs !== null ? stoppingAtMs - crossing.atMs : Number.NaN,
    classification: outcome.classification,
  };
}

/** Runs the limits section and returns it as markdown. Linux only (the polling path reads /proc). */
export async function runLimitsBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Limits benchmark skipped: it measures the /proc refresh and needs Linux._';
  const load = createLoad();
  let overhead: CheckOverhead;
  try {
    const root = await load.start(OWNED_BRANCHES, OWNED_LEAVES);
    await waitForOwnedTree(root);
    overhead = await measureCheckOverhead(root);
  } finally {
    await load.end();
  }
  const balloons: BalloonResult[] = [];
  for (let i = 0; i < BALLOON_RUNS; i += 1) balloons.push(await measureBalloon());
  const ratio = overhead.pairedRatio;
  const checkTable = markdownTable(
    ['owned-tree refresh (100 owned)', 'ms', 'ratio'],
    [
      ['without limit checks', formatMs(overhead.plain), '1.00×'],
      ['with every limit checked', formatMs(overhead.checked), `${formatRatio(ratio)} (paired median)`],
    ],
  );
  // The paired ratio carries the shared machine's noise (a few %); the check timed alone on the
  // same table is the cost itself.
  const alonePercent = (overhead.alone / overhead.plain) * 100;
  const verdict = `The check alone: ${(overhead.alone * 1000).toFixed(1)} µs per refresh = ${alonePercent.toFixed(2)} % of the refresh. Target ≤ ${TARGET_CHECK_OVERHEAD * 100} %: ${alonePercent <= TARGET_CHECK_OVERHEAD * 100 ? 'met' : 'MISSED'} (paired difference ${((ratio - 1) * 100).toFixed(1)} %, within this machine's noise).`;
  const balloonRows = balloons.map((b, i) => [
    String(i + 1),
    b.classification,
    b.rateMBps.toFixed(0),
    b.overshootMB.toFixed(1),
    b.overshootMs.toFixed(0),
  ]);
  balloonRows.push([
    '**median**',
    '',
    median(balloons.map((b) => b.rateMBps)).toFixed(0),
    median(balloons.map((b) => b.overshootMB)).toFixed(1),
    median(balloons.map((b) => b.overshootMs)).toFixed(0),
  ]);
  const balloonTable = markdownTable(
    ['balloon run', 'classification', 'growth MB/s', 'overshoot MB (observed − limit)', 'crossing → stopping, ms'],
    balloonRows,
  );
  const within = median(balloons.map((b) => b.overshootMs)) <= RUN_POLL_INTERVAL_MS;
  return [
    `Refresh: median of ${CHECK_ROUNDS} interleaved rounds of ${REFRESHES_PER_SAMPLE} refreshes, the run's own \`ownedTreeRefresh\`, every limit set and none reachable.`,
    checkTable,
    verdict,
    `Balloon: max-memory ${BALLOON_LIMIT_BYTES / MIB} MiB, ${BALLOON_RUNS} runs; the crossing is seen by a side sampler every ${SAMPLER_INTERVAL_MS} ms.`,
    balloonTable,
    `Target: ended within one refresh interval (${RUN_POLL_INTERVAL_MS} ms) of crossing → ${within ? 'met' : 'MISSED'} (median).`,
    '#### cgroup path beside polling',
    await runCgroupBench(),
  ].join('\n\n');
}
