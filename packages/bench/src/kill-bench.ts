/**
 * Kill benchmark: time from "kill" to "every member dead" for a 100-process tree with 20 setsid
 * sessions, Treewarden's owner kill against `tree-kill` (npm) and a bare signal loop (the floor:
 * SIGKILL every pid recorded at build time), in three variants: root alive; root killed first;
 * intermediate parents already exited. Survivors are counted after a bound, then cleaned up by
 * their recorded pids. Linux only (the tree is built from sh and sleep to stay light).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessIdentity } from '@treewarden/engine';
import {
  createTreeOwner,
  findCookieCarriers,
  killOwnedTree,
  RUN_ID_ENV,
  readLeanProcTable,
  readStatLite,
} from '@treewarden/engine';

/** 1 root + 15 sleeps under it + 4 intermediates + 20 sessions × (leader + 3 sleeps) = 100. */
export const TREE_SIZE = 100;
export const SESSIONS = 20;
const INTERMEDIATES = 4;
const ROOT_SLEEPERS = 15;
/** How long a tree may take to build, and how long each contender gets before survivors are counted. */
export const BUILD_BOUND_MS = 20_000;
export const DEATH_BOUND_MS = 5_000;
const POLL_MS = 1;
/** tree-kill spawns one `ps` per tree member; on a loaded machine that alone can take minutes. */
export const TREE_KILL_BOUND_MS = 30_000;
/** Repetitions per cell; the median is reported. */
export const BENCH_REPEATS = 3;
/** Every bench process exits on its own after this, even if cleanup failed. */
const SLEEP_SECONDS = '300';

type Variant = 'root alive' | 'root killed first' | 'intermediates exited';
export type Contender = 'treewarden' | 'tree-kill' | 'bare signal loop';
const VARIANTS: readonly Variant[] = ['root alive', 'root killed first', 'intermediates exited'];
const ALL_CONTENDERS: readonly Contender[] = ['bare signal loop', 'treewarden', 'tree-kill'];

interface BenchTree {
  readonly root: ChildProcess;
  readonly rootIdentity: ProcessIdentity;
  readonly runId: string;
  readonly members: readonly ProcessIdentity[];
  readonly intermediates: readonly number[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sessionScript(): string {
  return `sleep ${SLEEP_SECONDS} & sleep ${SLEEP_SECONDS} & sleep ${SLEEP_SECONDS} & wait`;
}

function intermediateScript(): string {
  const sessions = Array.from({ length: SESSIONS / INTERMEDIATES }, () => `setsid sh -c '${sessionScript()}' &`);
  // Blocks on a FIFO (a builtin read: no transient processes) until released, then exits at once
  // in the "intermediates exited" variant or waits for its sessions otherwise.
  return `${sessions.join(' ')} read line < "$RELEASE"; [ "$EXIT_EARLY" = 1 ] && exit 0; wait`;
}

function rootScript(): string {
  const intermediates = Array.from({ length: INTERMEDIATES }, () => `sh -c "$INTER" &`);
  const sleepers = Array.from({ length: ROOT_SLEEPERS }, () => `sleep ${SLEEP_SECONDS} &`);
  return `${intermediates.join(' ')} ${sleepers.join(' ')} wait`;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function isDead(identity: ProcessIdentity): boolean {
  const stat = readStatLite(identity.pid);
  return stat === null || stat.startTime !== identity.startTime || stat.state === 'Z' || stat.state === 'X';
}

function survivorsOf(members: readonly ProcessIdentity[]): ProcessIdentity[] {
  return members.filter((m) => !isDead(m));
}

async function waitForCarriers(runId: string, count: number): Promise<ProcessIdentity[]> {
  const deadline = performance.now() + BUILD_BOUND_MS;
  for (;;) {
    const carriers = findCookieCarriers(runId, readLeanProcTable()).filter((c) => !isDead(c));
    if (carriers.length === count) return carriers;
    if (performance.now() > deadline)
      throw new Error(`bench tree: ${carriers.length} of ${count} processes after ${BUILD_BOUND_MS} ms`);
    await sleep(20);
  }
}

async function buildTree(variant: Variant, releaseFile: string): Promise<BenchTree> {
  const runId = randomUUID();
  execFileSync('mkfifo', [releaseFile]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    [RUN_ID_ENV]: runId,
    INTER: intermediateScript(),
    RELEASE: releaseFile,
  };
  if (variant === 'intermediates exited') env.EXIT_EARLY = '1';
  const root = spawn('/bin/sh', ['-c', rootScript()], { detached: true, stdio: 'ignore', env });
  const members = await waitForCarriers(runId, TREE_SIZE);
  const rootIdentity = members.find((m) => m.pid === root.pid);
  if (rootIdentity === undefined) throw new Error('bench tree: the root is not among the carriers');
  const table = readLeanProcTable();
  const intermediates = members.filter((m) => table.entries.get(m.pid)?.ppid === root.pid && commandOf(m.pid) === 'sh');
  return { root, rootIdentity, runId, members, intermediates: intermediates.map((m) => m.pid) };
}

/** Applies the variant's disruption before the timed kill. */
async function disrupt(variant: Variant, tree: BenchTree, releaseFile: string): Promise<readonly ProcessIdentity[]> {
  if (variant === 'root killed first') {
    process.kill(tree.rootIdentity.pid, 'SIGKILL');
  }
  // Opening the FIFO for writing releases every intermediate blocked reading it.
  writeFileSync(releaseFile, 'go\n');
  if (variant === 'intermediates exited') {
    const intermediates = tree.members.filter((m) => tree.intermediates.includes(m.pid));
    await waitFor(() => intermediates.every(isDead));
  }
  if (variant === 'root killed first') await waitFor(() => isDead(tree.rootIdentity));
  return tree.members.filter((m) => !isDead(m));
}

async function waitFor(condition: () => boolean): Promise<boolean> {
  const deadline = performance.now() + DEATH_BOUND_MS;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

async function runContender(
  contender: Contender,
  tree: BenchTree,
  alive: readonly ProcessIdentity[],
  owner: ReturnType<typeof createTreeOwner>,
): Promise<number> {
  const started = performance.now();
  if (contender === 'bare signal loop') {
    for (const member of alive) {
      try {
        process.kill(member.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  } else if (contender === 'treewarden') {
    await killOwnedTree(owner, { graceMs: 0 });
  } else {
    const { default: treeKill } = await import('tree-kill');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, TREE_KILL_BOUND_MS);
      treeKill(tree.rootIdentity.pid, 'SIGKILL', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await waitFor(() => alive.every(isDead));
  return performance.now() - started;
}

function cleanUp(tree: BenchTree): void {
  for (const member of survivorsOf(tree.members)) {
    try {
      process.kill(member.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

interface Cell {
  readonly ms: number[];
  readonly survivors: number[];
  readonly members: number;
}

async function measure(
  variant: Variant,
  contender: Contender,
  releaseFile: string,
): Promise<{ ms: number; survivors: number; members: number }> {
  const tree = await buildTree(variant, releaseFile);
  try {
    // Treewarden's owner observed the tree while it was whole, as a run supervisor does.
    const owner = createTreeOwner(tree.rootIdentity, { runId: tree.runId });
    await owner.observe();
    const alive = await disrupt(variant, tree, releaseFile);
    const ms = await runContender(contender, tree, alive, owner);
    return { ms, survivors: survivorsOf(alive).length, members: alive.length };
  } finally {
    cleanUp(tree);
    await waitFor(() => tree.members.every(isDead));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Runs the kill benchmark and returns a markdown table. `contenders` narrows the run (the floor
 * always runs: every ratio is against it).
 */
export async function runKillBench(
  repeats = BENCH_REPEATS,
  contenders: readonly Contender[] = ALL_CONTENDERS,
): Promise<string> {
  const selected = ALL_CONTENDERS.filter((c) => c === 'bare signal loop' || contenders.includes(c));
  if (process.platform !== 'linux')
    return '_Kill benchmark skipped: it builds its tree from sh/setsid on Linux only._\n';
  const dir = mkdtempSync(join(tmpdir(), 'tw-kill-bench-'));
  const cells = new Map<string, Cell>();
  try {
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      for (const variant of VARIANTS) {
        for (const contender of selected) {
          const release = join(
            dir,
            `release-${repeat}-${variant.replaceAll(' ', '-')}-${contender.replaceAll(' ', '-')}`,
          );
          const result = await measure(variant, contender, release);
          const key = `${variant}|${contender}`;
          const cell = cells.get(key) ?? { ms: [], survivors: [], members: result.members };
          cell.ms.push(result.ms);
          cell.survivors.push(result.survivors);
          cells.set(key, cell);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return formatTable(cells, repeats);
}

function formatTable(cells: Map<string, Cell>, repeats: number): string {
  const lines = [
    `Kill: ${TREE_SIZE}-process tree with ${SESSIONS} setsid sessions; median of ${repeats}; time from kill to every member dead (bound ${DEATH_BOUND_MS} ms); survivors = max over runs.`,
    '',
    '| variant | members at kill | bare signal loop (floor) | treewarden | × floor | survivors | tree-kill | × floor | survivors |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const variant of VARIANTS) {
    const floor = cells.get(`${variant}|bare signal loop`);
    const ours = cells.get(`${variant}|treewarden`);
    const theirs = cells.get(`${variant}|tree-kill`);
    if (floor === undefined) continue;
    const base = median(floor.ms);
    const show = (cell: Cell | undefined) => {
      if (cell === undefined) return ['not run', '—', '—'];
      const survivors = Math.max(...cell.survivors);
      const ms = median(cell.ms);
      return survivors > 0
        ? [`${ms.toFixed(1)} ms (bound hit)`, '—', String(survivors)]
        : [`${ms.toFixed(1)} ms`, `${(ms / base).toFixed(2)}×`, '0'];
    };
    lines.push(
      `| ${variant} | ${floor.members} | ${base.toFixed(1)} ms | ${show(ours).join(' | ')} | ${show(theirs).join(' | ')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runKillBench().then((markdown) => process.stdout.write(markdown));
}
