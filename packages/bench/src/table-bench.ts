/**
 * Table benchmark: with ~1,000 and then ~5,000 extra processes alive, time a full snapshot
 * (ours) against ps-list, pidtree and bare /proc read loops, the owned-tree refresh (100 owned
 * among them) against the full snapshot, and the CPU cost of polling each once a second.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clockTicks, createLinuxReader, listPids, readProcText } from '@treewarden/engine';
import pidtree from 'pidtree';
import psList from 'ps-list';
import { createLoad } from './pause-load.js';
import {
  type Contender,
  formatMs,
  formatRatio,
  markdownTable,
  measureCpuMs,
  median,
  sleep,
  timeRounds,
} from './util.js';

/** Extra processes alive during each measurement, owned tree included. */
export const LOAD_SIZES = [1_000, 5_000] as const;
/** The owned tree: 1 root shell + 9 branch shells + 90 pausers. */
const OWNED_BRANCHES = 9;
const OWNED_LEAVES = 10;
const OWNED_SIZE = 1 + OWNED_BRANCHES + OWNED_BRANCHES * OWNED_LEAVES;
const OWNED_READY_MS = 30_000;
const TIMING_ROUNDS = 9;
const POLL_INTERVAL_MS = 1_000;
const POLL_COUNT = 10;

const TARGET_SNAPSHOT_VS_BARE = 1.3;
const TARGET_TREE_SPEEDUP = 20;
const TREE_TARGET_AT = 5_000;
const TARGET_POLL_SHARE_OF_PS_LIST = 1 / 3;

/** The floor for Node: readFileSync of every /proc/PID/stat, nothing parsed. */
function bareStatLoop(): number {
  let read = 0;
  for (const name of readdirSync('/proc')) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    try {
      readFileSync(`/proc/${name}/stat`, 'latin1');
      read += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return read;
}

/** A tighter floor: the same loop with the reused-buffer read our reader uses. */
function bufferedStatLoop(): number {
  let read = 0;
  for (const pid of listPids()) if (readProcText(`/proc/${pid}/stat`) !== null) read += 1;
  return read;
}

function statCmdlineLoop(): number {
  let read = 0;
  for (const pid of listPids()) {
    try {
      readFileSync(`/proc/${pid}/stat`, 'latin1');
      readFileSync(`/proc/${pid}/cmdline`);
      read += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return read;
}

function contendersFor(ownedRoot: number): Map<string, Contender> {
  const reader = createLinuxReader();
  reader.snapshot(); // warm the identity cache, as a poller's every read after the first is
  return new Map<string, Contender>([
    ['ours: full snapshot', () => reader.snapshot()],
    [`ours: owned-tree refresh (${OWNED_SIZE} owned)`, () => reader.snapshotTrees([ownedRoot])],
    ['ps-list', () => psList()],
    ['pidtree (all pids)', () => pidtree(-1, { advanced: true })],
    ['bare stat loop (readFileSync; floor)', bareStatLoop],
    ['bare stat loop (reused buffer)', bufferedStatLoop],
    ['stat + cmdline loop', statCmdlineLoop],
  ]);
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

interface SizeResult {
  readonly extra: number;
  readonly processes: number;
  readonly coldMs: number;
  readonly medians: Map<string, number>;
  readonly polling: Map<string, number>;
}

async function measureSize(extra: number, ownedRoot: number): Promise<SizeResult> {
  const coldStarted = performance.now();
  const processes = createLinuxReader().snapshot().entries.size;
  const coldMs = performance.now() - coldStarted;
  const contenders = contendersFor(ownedRoot);
  const times = await timeRounds(contenders, TIMING_ROUNDS);
  const medians = new Map([...times].map(([name, runs]) => [name, median(runs)]));
  const polling = await measurePolling(contenders);
  return { extra, processes, coldMs, medians, polling };
}

function renderSize(result: SizeResult): string {
  const floor = result.medians.get('bare stat loop (readFileSync; floor)') ?? Number.NaN;
  const ours = result.medians.get('ours: full snapshot') ?? Number.NaN;
  const rows = [...result.medians].map(([name, ms]) => [
    name,
    formatMs(ms),
    formatRatio(ms / floor),
    formatRatio(ms / ours),
    `${(result.polling.get(name) ?? 0).toFixed(2)} %`,
  ]);
  rows.push([
    'ours: first snapshot (cold cache)',
    formatMs(result.coldMs),
    formatRatio(result.coldMs / floor),
    formatRatio(result.coldMs / ours),
    '—',
  ]);
  const title = `#### ~${result.extra.toLocaleString('en-US')} extra processes (${result.processes} in the table)`;
  const headers = ['reader', 'median ms', '× bare stat loop', '× our snapshot', 'CPU polling 1/s (% of a core)'];
  return `${title}\n\n${markdownTable(headers, rows)}`;
}

function renderTargets(results: readonly SizeResult[]): string {
  const rows = results.map((result) => {
    const ours = result.medians.get('ours: full snapshot') ?? Number.NaN;
    const floor = result.medians.get('bare stat loop (readFileSync; floor)') ?? Number.NaN;
    const tree = result.medians.get(`ours: owned-tree refresh (${OWNED_SIZE} owned)`) ?? Number.NaN;
    const pollShare = (result.polling.get('ours: full snapshot') ?? 0) / (result.polling.get('ps-list') ?? Number.NaN);
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    return [
      `~${result.extra.toLocaleString('en-US')}`,
      `${formatRatio(ours / floor)} (${mark(ours / floor <= TARGET_SNAPSHOT_VS_BARE)})`,
      // The issue sets the owned-refresh target for 100 owned among ~5,000; at ~1,000 it is shown only.
      `${formatRatio(ours / tree)} cheaper${result.extra >= TREE_TARGET_AT ? ` (${mark(ours / tree >= TARGET_TREE_SPEEDUP)})` : ''}`,
      `${formatRatio(pollShare)} of ps-list (${mark(pollShare <= TARGET_POLL_SHARE_OF_PS_LIST)})`,
    ];
  });
  const headers = [
    'extra processes',
    `snapshot vs bare stat loop (≤ ${TARGET_SNAPSHOT_VS_BARE}×)`,
    `owned refresh vs snapshot (≥ ${TARGET_TREE_SPEEDUP}× at ~5,000)`,
    'polling CPU vs ps-list (≤ 0.33×)',
  ];
  return markdownTable(headers, rows);
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

/** Runs the table section and returns it as markdown. Linux only (it measures /proc readers). */
export async function runTableBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Table benchmark skipped: it measures /proc readers and needs Linux._';
  const load = createLoad();
  const results: SizeResult[] = [];
  try {
    const ownedRoot = await load.start(OWNED_BRANCHES, OWNED_LEAVES);
    await waitForOwnedTree(ownedRoot);
    let started: number = OWNED_SIZE;
    for (const extra of LOAD_SIZES) {
      await load.startFlat(extra - started);
      started = extra;
      results.push(await measureSize(extra, ownedRoot));
    }
  } finally {
    await load.end();
  }
  const intro = `Median of ${TIMING_ROUNDS} rounds (contenders interleaved, order rotated); polling: ${POLL_COUNT} polls at 1/s, CPU of this process plus reaped children (the \`ps\` that ps-list and pidtree spawn).`;
  return [intro, ...results.map(renderSize), '#### Targets', renderTargets(results)].join('\n\n');
}
