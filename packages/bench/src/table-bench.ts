/**
 * Table benchmark: with ~1,000 and then ~5,000 extra processes alive (and ~20,000 with
 * BENCH_PROCESSES=20000), time a full snapshot (ours, warm and cold) against bare /proc loops,
 * ps-list and pidtree, the host's system-view poll built on it, the owned-tree refresh (100 owned
 * among them), where the snapshot's time goes (syscalls vs JS), and the CPU cost of polling each
 * once a second.
 */
import { clockTicks, createLinuxReader } from '@treewarden/engine';
import pidtree from 'pidtree';
import psList from 'ps-list';
import { createHostPoll, type HostPoll } from './host-poll.js';
import { createLoad, type Load } from './pause-load.js';
import {
  cwdReadlinkLoop,
  ownerStatLoop,
  readFileStatLoop,
  reusedBufferStatLoop,
  statCmdlineLoop,
  statSyscallsLoop,
} from './table-floors.js';
import { NAMES, OWNED_BRANCHES, OWNED_LEAVES, OWNED_SIZE } from './table-names.js';
import { renderSize, renderSplit, renderTargets, type SizeResult, type Split } from './table-report.js';
import { type LargeSizeCheck, largeSizes, roomForLoad } from './table-room.js';
import { type Contender, measureCpuMs, median, sleep, timeRounds } from './util.js';

/** Extra processes alive during each measurement, owned tree included. */
export const LOAD_SIZES = [1_000, 5_000] as const;
const OWNED_READY_MS = 30_000;
const TIMING_ROUNDS = 9;
/** Fewer rounds above ~5,000: a round there costs seconds. */
const LARGE_TIMING_ROUNDS = 5;
const POLL_INTERVAL_MS = 1_000;
const POLL_COUNT = 10;

/** Rows whose user/system split is reported. */
const SPLIT_ROWS = [NAMES.snapshot, NAMES.noCwd, NAMES.cold, NAMES.floor, NAMES.syscalls, NAMES.cwd] as const;

function contendersFor(
  ownedRoot: number,
  host: HostPoll,
  large: boolean,
): { contenders: Map<string, Contender>; close: () => void } {
  // A run's owner walks its tree with a reader of its own from the run's start (its refresh), so
  // it holds that tree's files before any full read here takes this thread's budget for them.
  const treeReader = createLinuxReader({ cwd: false });
  treeReader.snapshotTrees([ownedRoot]);
  // Created next, so the warm reader's stat files come out of the budget before the others'.
  const reader = createLinuxReader();
  const noCwd = createLinuxReader({ cwd: false });
  // Warm the identity caches, as a poller's every read after the first is.
  reader.snapshot();
  noCwd.snapshot();
  const contenders = new Map<string, Contender>([
    [NAMES.snapshot, () => reader.snapshot()],
    [NAMES.cold, () => createLinuxReader().snapshot()],
    [NAMES.noCwd, () => noCwd.snapshot()],
    [NAMES.tree, () => treeReader.snapshotTrees([ownedRoot])],
    [NAMES.host, () => host.poll()],
    [NAMES.floor, reusedBufferStatLoop],
    [NAMES.syscalls, statSyscallsLoop],
    [NAMES.cwd, cwdReadlinkLoop],
    [NAMES.cmdline, statCmdlineLoop],
    [NAMES.owner, ownerStatLoop],
  ]);
  // ps-list and pidtree take seconds a call at ~20,000: shown up to ~5,000 only.
  if (!large) {
    contenders.set(NAMES.readFile, readFileStatLoop);
    contenders.set(NAMES.psList, () => psList());
    contenders.set(NAMES.pidtree, () => pidtree(-1, { advanced: true }));
  }
  return {
    contenders,
    close: () => {
      treeReader.close();
      reader.close();
      noCwd.close();
    },
  };
}

/** User and system CPU ms per call (mean over `rounds`), interleaved like the timing rounds. */
async function measureSplit(contenders: ReadonlyMap<string, Contender>, rounds: number): Promise<Map<string, Split>> {
  const totals = new Map<string, { user: number; system: number }>(
    SPLIT_ROWS.map((name) => [name, { user: 0, system: 0 }]),
  );
  for (let round = 0; round < rounds; round += 1) {
    for (const name of SPLIT_ROWS) {
      const run = contenders.get(name);
      const total = totals.get(name);
      if (run === undefined || total === undefined) continue;
      const before = process.cpuUsage();
      await run();
      const used = process.cpuUsage(before);
      total.user += used.user / 1000;
      total.system += used.system / 1000;
    }
  }
  return new Map(
    [...totals].map(([name, { user, system }]) => [name, { userMs: user / rounds, systemMs: system / rounds }]),
  );
}

/** Polls every contender once per interval, interleaved, and returns CPU % of one core each. */
async function measurePolling(contenders: ReadonlyMap<string, Contender>): Promise<Map<string, number>> {
  const cpuMs = new Map<string, number>([...contenders.keys()].map((name) => [name, 0]));
  for (let poll = 0; poll < POLL_COUNT; poll += 1) {
    const started = Date.now();
    for (const [name, run] of contenders)
      cpuMs.set(name, (cpuMs.get(name) ?? 0) + (await measureCpuMs(run, clockTicks())));
    await sleep(Math.max(0, started + POLL_INTERVAL_MS - Date.now()));
  }
  const share = new Map<string, number>();
  for (const [name, ms] of cpuMs) share.set(name, (ms / (POLL_COUNT * POLL_INTERVAL_MS)) * 100);
  return share;
}

async function measureSize(extra: number, ownedRoot: number, host: HostPoll): Promise<SizeResult> {
  const large = extra > Math.max(...LOAD_SIZES);
  const processes = createLinuxReader({ cwd: false }).snapshot().entries.size;
  await host.poll(); // the worker's reader and the rows start warm, as in a running app
  const failedBefore = host.failures();
  const { contenders, close } = contendersFor(ownedRoot, host, large);
  const rounds = large ? LARGE_TIMING_ROUNDS : TIMING_ROUNDS;
  const times = await timeRounds(contenders, rounds);
  const medians = new Map([...times].map(([name, runs]) => [name, median(runs)]));
  const split = await measureSplit(contenders, rounds);
  // Polling every contender once a second for 10 s: skipped where one poll takes seconds.
  const polling = large ? new Map<string, number>() : await measurePolling(contenders);
  close();
  return { extra, processes, medians, split, polling, hostFailures: host.failures() - failedBefore };
}

async function waitForOwnedTree(root: number): Promise<void> {
  const reader = createLinuxReader();
  const deadline = Date.now() + OWNED_READY_MS;
  while (reader.snapshotTrees([root]).entries.size < OWNED_SIZE) {
    if (Date.now() > deadline)
      throw new Error(`table bench: owned tree of ${OWNED_SIZE} not up within ${OWNED_READY_MS} ms`);
    await sleep(50);
  }
}

async function measureAll(load: Load, host: HostPoll, skipped: string[]): Promise<SizeResult[]> {
  const results: SizeResult[] = [];
  const ownedRoot = await load.start(OWNED_BRANCHES, OWNED_LEAVES);
  await waitForOwnedTree(ownedRoot);
  let started: number = OWNED_SIZE;
  for (const extra of [...LOAD_SIZES, ...largeSizes()]) {
    const check: LargeSizeCheck = roomForLoad(extra - started);
    if (!check.ok) {
      skipped.push(`~${extra.toLocaleString('en-US')} skipped: ${check.why}`);
      continue;
    }
    await load.startFlat(extra - started);
    started = extra;
    results.push(await measureSize(extra, ownedRoot, host));
  }
  return results;
}

/** Runs the table section and returns it as markdown. Linux only (it measures /proc readers). */
export async function runTableBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Table benchmark skipped: it measures /proc readers and needs Linux._';
  const load = createLoad();
  const host = createHostPoll();
  const skipped: string[] = [];
  let results: SizeResult[];
  try {
    results = await measureAll(load, host, skipped);
  } finally {
    await host.close();
    await load.end();
  }
  const intro = `Median of ${TIMING_ROUNDS} rounds (${LARGE_TIMING_ROUNDS} above ~5,000; contenders interleaved, order rotated); polling: ${POLL_COUNT} polls at 1/s, CPU of this process plus reaped children (the \`ps\` that ps-list and pidtree spawn). Set BENCH_PROCESSES=20000 for the ~20,000-process case.`;
  return [
    intro,
    ...results.map(renderSize),
    '#### Where a snapshot’s time goes (CPU ms per call: user = JS and libuv, system = the kernel)',
    renderSplit(results),
    '#### Targets',
    renderTargets(results),
    ...skipped.map((line) => `_${line}_`),
  ].join('\n\n');
}
