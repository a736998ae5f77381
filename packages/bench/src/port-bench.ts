/**
 * Port benchmark: with ~1,000 processes alive, the port map for one run (~10 processes: a pause
 * tree plus a real server with a setsid listener) and the full map, against what a user would
 * reach for instead: a child_process call of `ss` or `lsof`, as `kill-port` / `find-process` do.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinuxReader, LINUX_PORT_SOURCES, readLinuxPortMap } from '@treewarden/engine';
import { createLoad } from './pause-load.js';
import { type Contender, formatMs, formatRatio, markdownTable, median, sleep, timeRounds } from './util.js';

/** Processes alive during the measurement, the run's tree included. */
export const PORT_BENCH_LOAD = 1_000;
/** The run's pause tree: 1 shell + 9 pausers; the server fixture adds 2 listening processes. */
const RUN_PAUSERS = 9;
const TIMING_ROUNDS = 15;
/** The budget for one run's port map with ~1,000 processes on the machine. */
export const TARGET_RUN_MAP_MS = 5;
const SERVER_READY_MS = 30_000;
/** The server fixture exits on its own after this, even if the bench's cleanup failed. */
const SERVER_LIFETIME_MS = 600_000;
const OUTSIDE_TOOL_TIMEOUT_MS = 10_000;
const PROC_ONLY = { ...LINUX_PORT_SOURCES, readTcpListeners: () => null };
const PORT_SERVER = fileURLToPath(import.meta.resolve('@treewarden/engine/fixtures/port-server.mjs'));

interface BenchServer {
  readonly child: ChildProcess;
  readonly pids: readonly number[];
  readonly dir: string;
}

async function startServer(): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-port-bench-'));
  const report = join(dir, 'report.jsonl');
  const env = {
    ...process.env,
    TREEWARDEN_FIXTURE_REPORT: report,
    TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: String(SERVER_LIFETIME_MS),
  };
  const child = spawn(process.execPath, [PORT_SERVER], { detached: true, stdio: 'ignore', env });
  const deadline = Date.now() + SERVER_READY_MS;
  for (;;) {
    const lines = existsSync(report) ? readFileSync(report, 'utf8').trim().split('\n') : [];
    if (lines.length >= 2) return { child, dir, pids: lines.map((line) => (JSON.parse(line) as { pid: number }).pid) };
    if (Date.now() > deadline) throw new Error(`port bench: server not up within ${SERVER_READY_MS} ms`);
    await sleep(50);
  }
}

function endServer(server: BenchServer): void {
  // The server leads its own group; its listener leads another (setsid): end both by recorded pid.
  for (const pid of server.pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
  rmSync(server.dir, { recursive: true, force: true });
}

function runTool(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: OUTSIDE_TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, () => resolve());
  });
}

function findTool(name: string): string | null {
  return ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].map((dir) => join(dir, name)).find(existsSync) ?? null;
}

function contendersFor(runPids: readonly number[], roots: readonly number[], notes: string[]): Map<string, Contender> {
  const reader = createLinuxReader();
  const contenders = new Map<string, Contender>([
    [`ours: run map (${runPids.length} pids given)`, () => readLinuxPortMap(runPids)],
    ['ours: run map + owned-tree walk', () => readLinuxPortMap([...reader.snapshotTrees(roots).entries.keys()])],
    ['ours: full map (all pids)', () => readLinuxPortMap('all')],
    // The same run map with TCP read from /proc/net/tcp{,6}: the fallback where netlink is unavailable.
    ['ours: run map, /proc/net/tcp fallback', () => readLinuxPortMap(runPids, PROC_ONLY)],
  ]);
  const ss = findTool('ss');
  if (ss !== null) contenders.set('`ss -ltnup` via child_process', () => runTool(ss, ['-ltnup']));
  else notes.push('`ss` is not installed here: its row is skipped.');
  const lsof = findTool('lsof');
  if (lsof !== null)
    contenders.set('`lsof -nP -iTCP -sTCP:LISTEN` via child_process (kill-port style)', () =>
      runTool(lsof, ['-nP', '-iTCP', '-sTCP:LISTEN']),
    );
  else notes.push('`lsof` is not installed here: its row is skipped.');
  return contenders;
}

function render(
  medians: ReadonlyMap<string, number>,
  runPids: number,
  processes: number,
  notes: readonly string[],
): string {
  const runKey = `ours: run map (${runPids} pids given)`;
  const run = medians.get(runKey) ?? Number.NaN;
  const full = medians.get('ours: full map (all pids)') ?? Number.NaN;
  const rows = [...medians].map(([name, ms]) => [name, formatMs(ms), formatRatio(ms / run), formatRatio(ms / full)]);
  const verdict = run <= TARGET_RUN_MAP_MS ? 'met' : 'MISSED';
  return [
    `Median of ${TIMING_ROUNDS} rounds (interleaved, order rotated), ${processes} processes in the table.`,
    markdownTable(['reader', 'median ms', '× our run map', '× our full map'], rows),
    `Target: one run's port map ≤ ${TARGET_RUN_MAP_MS} ms with ~${PORT_BENCH_LOAD.toLocaleString('en-US')} processes: ${formatMs(run)} ms (${verdict}).`,
    ...notes,
  ].join('\n\n');
}

/** Runs the port section and returns it as markdown. Linux only (it measures /proc readers). */
export async function runPortBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Port benchmark skipped: it measures /proc readers and needs Linux._';
  const load = createLoad();
  let server: BenchServer | null = null;
  try {
    const runRoot = await load.start(0, RUN_PAUSERS);
    server = await startServer();
    const roots = [runRoot, server.pids[0] as number];
    const runPids = [...createLinuxReader().snapshotTrees(roots).entries.keys()];
    await load.startFlat(Math.max(0, PORT_BENCH_LOAD - createLinuxReader().snapshot().entries.size));
    const processes = createLinuxReader().snapshot().entries.size;
    const notes: string[] = [];
    const times = await timeRounds(contendersFor(runPids, roots, notes), TIMING_ROUNDS);
    const medians = new Map([...times].map(([name, runs]) => [name, median(runs)]));
    return render(medians, runPids.length, processes, notes);
  } finally {
    if (server !== null) endServer(server);
    await load.end();
  }
}
