/**
 * Session hooks benchmark: with ~1,000 processes alive, a fake Claude Code runs the built CLI as
 * its SessionStart/SessionEnd hook (through `sh -c`, the event on stdin, as Claude does). Measures
 * how long the SessionEnd hook takes to return (the agent's own clock around the hook) against a
 * floor (`sh -c 'node -e 0'` fed the same event: a Node start-up), and the time from the agent's
 * exit to the last of its leftovers gone (the detached reaper: pidfd wake-up, table read, kill).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLinuxReader, readLiveStartTime, readSessions } from '@treewarden/engine';
import { createLoad } from './pause-load.js';
import { formatMs, formatRatio, markdownTable, median, sleep } from './util.js';

export const HOOKS_BENCH_LOAD = 1_000;
/** The issue's budgets: the SessionEnd hook returns ≤ 1 s; leftovers gone ≤ 3 s after the agent exits. */
export const TARGET_HOOK_RETURN_MS = 1_000;
export const TARGET_LEFTOVERS_GONE_MS = 3_000;
const TRIALS = 5;
const READY_BOUND_MS = 60_000;
const GONE_BOUND_MS = 45_000;
const POLL_MS = 10;
/** The fake agent exits on its own after this, even if the bench's cleanup failed. */
const AGENT_LIFETIME_MS = 300_000;
/** claude-root, the SessionStart hook's report, member, dev-server, no-id-child. */
const AGENT_REPORTS = 5;
const HOOKED_CLAUDE = fileURLToPath(import.meta.resolve('@treewarden/engine/fixtures/agents/hooked-claude.mjs'));
/** The built CLI, as `hooks install` would write it into the agent's settings. */
const CLI_MAIN = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));

interface Report {
  readonly role: string;
  readonly pid: number;
  readonly event?: string | null;
  readonly code?: number;
  readonly ms?: number;
}

function readReports(file: string): Report[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Report);
}

async function waitFor<T>(probe: () => T | null | undefined, what: string, boundMs: number): Promise<T> {
  const deadline = performance.now() + boundMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`hooks bench: ${what} not within ${boundMs} ms`);
    await sleep(POLL_MS);
  }
}

function descendants(rootPid: number): { pid: number; startTime: string }[] {
  const entries = [...createLinuxReader().snapshot().entries.values()];
  const pids = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of entries)
      if (!pids.has(entry.pid) && pids.has(entry.ppid)) {
        pids.add(entry.pid);
        grew = true;
      }
  }
  return entries.filter((e) => e.pid !== rootPid && pids.has(e.pid)).map(({ pid, startTime }) => ({ pid, startTime }));
}

/** One session: start, SIGUSR2 (SessionEnd then exit); the hook's return ms and exit → leftovers gone ms. */
/** The reaper note of one session (its own timings), null until the reaper wrote it. */
function reaperNote(stateRoot: string, sessionId: string): string | null {
  const session = readSessions(stateRoot).sessions.find((candidate) => candidate.hook?.sessionId === sessionId);
  return session?.hook?.cleanup?.note ?? null;
}

async function trial(stateRoot: string): Promise<{ hookMs: number; goneMs: number; note: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-hooks-bench-'));
  const stub = join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(HOOKED_CLAUDE).href)});\n`);
  const reportFile = join(dir, 'report.jsonl');
  const sessionId = randomUUID();
  const child = spawn(process.execPath, [stub], {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      TREEWARDEN_HOME: stateRoot,
      TREEWARDEN_FIXTURE_REPORT: reportFile,
      TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: String(AGENT_LIFETIME_MS),
      FAKE_SESSION_ID: sessionId,
      FAKE_HOOK_COMMAND: `'${process.execPath}' '${CLI_MAIN}' hook claude`,
    },
  });
  const rootPid = child.pid as number;
  let leftovers: { pid: number; startTime: string }[] = [];
  try {
    await waitFor(() => (readReports(reportFile).length >= AGENT_REPORTS ? true : null), 'agent ready', READY_BOUND_MS);
    await sleep(200); // The shells report nothing: give them a moment to be forked.
    leftovers = descendants(rootPid);
    process.kill(rootPid, 'SIGUSR2');
    const end = await waitFor(
      () => readReports(reportFile).find((r) => r.role === 'hook' && r.event === 'SessionEnd'),
      'SessionEnd hook',
      READY_BOUND_MS,
    );
    const exitedAt = await waitFor(
      () => (readLiveStartTime(rootPid) === null ? performance.now() : null),
      'agent exit',
      READY_BOUND_MS,
    );
    const goneAt = await waitFor(
      () => (leftovers.every((p) => readLiveStartTime(p.pid) !== p.startTime) ? performance.now() : null),
      'leftovers gone',
      GONE_BOUND_MS,
    );
    const note = await waitFor(() => reaperNote(stateRoot, sessionId), "the reaper's note", GONE_BOUND_MS);
    return { hookMs: end.ms ?? Number.NaN, goneMs: goneAt - exitedAt, note };
  } finally {
    for (const { pid, startTime } of [{ pid: rootPid, startTime: '' }, ...leftovers]) {
      const live = readLiveStartTime(pid);
      if (live !== null && (startTime === '' || live === startTime)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The floor: the same event piped into `sh -c 'node -e 0'` (a shell plus a bare Node start-up). */
async function floorMs(): Promise<number> {
  const started = performance.now();
  const child = spawn('sh', ['-c', `'${process.execPath}' -e 0`], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end('{"session_id":"x","hook_event_name":"SessionEnd"}');
  await new Promise((resolve) => child.on('close', resolve));
  return performance.now() - started;
}

export async function runHooksBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Hooks benchmark skipped: the reaper reads /proc and needs Linux._';
  if (!existsSync(CLI_MAIN)) return `_Hooks benchmark skipped: ${CLI_MAIN} is missing (build first)._`;
  const stateRoot = mkdtempSync(join(tmpdir(), 'tw-hooks-bench-state-'));
  const load = createLoad();
  try {
    await load.startFlat(Math.max(0, HOOKS_BENCH_LOAD - createLinuxReader().snapshot().entries.size));
    const processes = createLinuxReader().snapshot().entries.size;
    const hooks: number[] = [];
    const gone: number[] = [];
    const floors: number[] = [];
    const notes: string[] = [];
    for (let round = 0; round < TRIALS; round += 1) {
      floors.push(await floorMs());
      const { hookMs, goneMs, note } = await trial(stateRoot);
      notes.push(note);
      hooks.push(hookMs);
      gone.push(goneMs);
    }
    const hook = median(hooks);
    const floor = median(floors);
    const leftovers = median(gone);
    const verdict = (worst: number, target: number) => (worst <= target ? 'PASS' : 'FAIL');
    const rows = [
      [
        `SessionEnd hook returns, ms (median of ${TRIALS}; max ${formatMs(Math.max(...hooks))})`,
        formatMs(hook),
        `${formatRatio(hook / floor)} the floor`,
      ],
      ["floor: `sh -c 'node -e 0'` fed the same event, ms", formatMs(floor), ''],
      [
        `agent exit → leftovers gone, ms (median of ${TRIALS}; max ${formatMs(Math.max(...gone))})`,
        formatMs(leftovers),
        '',
      ],
    ];
    const lines = [
      `${verdict(Math.max(...hooks), TARGET_HOOK_RETURN_MS)}: SessionEnd hook return ≤ ${TARGET_HOOK_RETURN_MS} ms (worst ${formatMs(Math.max(...hooks))} ms)`,
      `${verdict(Math.max(...gone), TARGET_LEFTOVERS_GONE_MS)}: leftovers gone ≤ ${TARGET_LEFTOVERS_GONE_MS} ms after the agent exits (worst ${formatMs(Math.max(...gone))} ms)`,
    ];
    return `${processes} processes alive; a fake Claude with 5 leftovers (one setsid'ed, one without the id) per trial.\n\n${markdownTable(['measure', 'value', 'note'], rows)}\n\nThe reaper's own account, per trial (its note in the session record):\n${notes.map((note) => `- ${note}`).join('\n')}\n\n${lines.join('\n')}`;
  } finally {
    await load.end();
    rmSync(stateRoot, { recursive: true, force: true });
  }
}
