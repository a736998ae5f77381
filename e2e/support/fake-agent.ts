/**
 * A fake Claude Code session for the UI specs: the engine's fixture, installed the way npm
 * installs the real one (`<tmp>/node_modules/@anthropic-ai/claude-code/cli.js`), started in its
 * own session as a terminal would. Every process of its tree is recorded with its start time, so
 * `stop()` ends exactly those (a recycled pid is left alone), whatever the UI did. With `busy`, the
 * root first starts a worker that uses some CPU and a growing amount of memory, so the session's
 * curves have something to draw. With `mcpSets`, the root is the engine's piling fixture
 * (fake-claude-piles.mjs) holding that many sets of the same MCP server: a pile-up inside a live
 * session, which the host alerts and the UI trims.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from '@playwright/test';
import { FIXTURES_DIR } from './env';

/** claude-root, npx-wrapper, mcp-server, dev-server, subagent report; the two `sh -c` shells do not. */
const REPORTING_PROCESSES = 5;
const TREE_SIZE = REPORTING_PROCESSES + 2;
/**
 * The busy worker: every BUSY_STEP_MS it spins for BUSY_SPIN_MS (a quarter of a core, gentle on a
 * shared two-core machine) and keeps one more BUSY_CHUNK_BYTES, up to BUSY_MAX_CHUNKS; it ends
 * itself after the fixtures' lifetime, and when its parent is gone it goes on (a leak, like any member).
 */
const BUSY_WORKER = `
const STEP_MS = 250;
const SPIN_MS = 60;
const CHUNK_BYTES = 1024 * 1024;
const MAX_CHUNKS = 96;
const chunks = [];
let step = 0;
setInterval(() => {
  const until = Date.now() + SPIN_MS;
  while (Date.now() < until) {}
  step += 1;
  if (step % 2 === 0 && chunks.length < MAX_CHUNKS) chunks.push(Buffer.alloc(CHUNK_BYTES, step));
}, STEP_MS);
setTimeout(() => process.exit(0), Number(process.env.TREEWARDEN_FIXTURE_MAX_LIFETIME_MS) || 180000);
`;
/** Node start-ups of the whole tree on a loaded two-core machine. */
const TREE_START_TIMEOUT_MS = 30_000;
/** The fixtures end themselves after this long even if every clean-up fails. */
const FIXTURE_LIFETIME_MS = 180_000;

export interface FixtureReport {
  readonly role: string;
  readonly pid: number;
  readonly ppid: number;
}

function readReports(file: string): FixtureReport[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FixtureReport);
}

export interface FakeClaude {
  readonly dir: string;
  readonly rootPid: number;
  /** pid → start time (field 22 of /proc/PID/stat) of every process of the tree. */
  readonly tree: ReadonlyMap<number, string>;
  /** What each fixture process reported of itself (role, pid, ppid), read once the tree was up. */
  readonly reports: readonly FixtureReport[];
  aliveCount(): number;
  stop(): void;
}

export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): a zombie is gone for our purposes.
    return fields[0] === 'Z' ? null : (fields[19] ?? null);
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function readTree(rootPid: number): Map<number, string> {
  const tree = new Map<number, string>();
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    const start = startTimeOf(pid);
    if (start === null || tree.has(pid)) continue;
    tree.set(pid, start);
    stack.push(...childrenOf(pid));
  }
  return tree;
}

function reportCount(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** The stub npm would install: it imports the fixture, after starting the busy worker when asked. */
function writeStub(dir: string, busy: boolean, fixture: string): string {
  const stub = join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
  mkdirSync(join(stub, '..'), { recursive: true });
  const fixtureUrl = pathToFileURL(join(FIXTURES_DIR, 'agents', fixture)).href;
  let prelude = '';
  if (busy) {
    const worker = join(dir, 'busy-worker.mjs');
    writeFileSync(worker, BUSY_WORKER);
    // Only the root (not the fixture's subagent, which runs this same file) starts the worker.
    prelude = `if (!process.argv.includes('--output-format')) require('node:child_process').spawn(process.execPath, [${JSON.stringify(worker)}], { stdio: 'ignore' });\n`;
  }
  writeFileSync(stub, `${prelude}import(${JSON.stringify(fixtureUrl)});\n`);
  return stub;
}

export interface FakeClaudeOptions {
  busy?: boolean;
  /** Sets of the same MCP server (npx wrapper → server) under the live root, oldest first. */
  mcpSets?: number;
  /**
   * Started by a shell that exits at once, so the root lives under pid 1 (or a subreaper), as
   * after the terminal that started it closed: the watcher then first finds it by its argv alone.
   */
  orphaned?: boolean;
}

/** Reports and tree size: the plain fixture's, or the piling one's (root + a wrapper and a server per set, no shells). */
function expectedTree({ busy = false, mcpSets }: FakeClaudeOptions): { reports: number; size: number } {
  if (mcpSets !== undefined) return { reports: 1 + 2 * mcpSets, size: 1 + 2 * mcpSets };
  return { reports: REPORTING_PROCESSES, size: TREE_SIZE + (busy ? 1 : 0) };
}

export async function startFakeClaude(options: FakeClaudeOptions = {}): Promise<FakeClaude> {
  const { busy = false, mcpSets } = options;
  const dir = mkdtempSync(join(tmpdir(), 'tw-e2e-agent-'));
  const stub = writeStub(dir, busy, mcpSets === undefined ? 'fake-claude.mjs' : 'fake-claude-piles.mjs');
  const expected = expectedTree(options);
  const reportFile = join(dir, 'report.jsonl');
  const env = {
    ...process.env,
    TREEWARDEN_FIXTURE_REPORT: reportFile,
    TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: String(FIXTURE_LIFETIME_MS),
    ...(mcpSets === undefined ? {} : { PILE_MCP_SETS: String(mcpSets) }),
  };
  const rootPid = options.orphaned
    ? Number(
        execFileSync('sh', ['-c', 'setsid "$0" "$1" </dev/null >/dev/null 2>&1 & echo $!', process.execPath, stub], {
          cwd: dir,
          env,
          encoding: 'utf8',
        }).trim(),
      )
    : (spawn(process.execPath, [stub], { cwd: dir, detached: true, stdio: 'ignore', env }).pid as number);
  const tree = new Map<number, string>();
  const stop = () => {
    for (const [pid, start] of tree) {
      if (startTimeOf(pid) !== start) continue; // gone, or the pid now names another process
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ESRCH: it ended between the check and the signal
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await expect
      .poll(
        () => {
          for (const [pid, start] of readTree(rootPid)) tree.set(pid, start);
          return reportCount(reportFile) >= expected.reports && tree.size >= expected.size;
        },
        { timeout: TREE_START_TIMEOUT_MS, message: 'the fake Claude tree to start' },
      )
      .toBe(true);
  } catch (error) {
    stop();
    throw error;
  }
  return {
    dir,
    rootPid,
    tree,
    reports: readReports(reportFile),
    aliveCount: () => [...tree].filter(([pid, start]) => startTimeOf(pid) === start).length,
    stop,
  };
}
