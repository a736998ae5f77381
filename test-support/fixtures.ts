/**
 * Spawning the shared fixtures (packages/engine/fixtures) and reading the pids they report.
 * Every fixture process appends `{"role","pid","ppid",...}` to the file named by
 * TREEWARDEN_FIXTURE_REPORT, which all its descendants inherit, even across setsid.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ProcessIdentity, readProcEntry } from '@treewarden/engine';
import { pollUntil } from './poll-until.js';
import type { ProcessTracker } from './process-tracker.js';

/** The engine's fixture scripts (exported as `@treewarden/engine/fixtures/*`). */
export const FIXTURES_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@treewarden/engine/fixtures/lib/report.mjs')),
  '..',
);
export const REPORT_ENV = 'TREEWARDEN_FIXTURE_REPORT';
export const MAX_LIFETIME_ENV = 'TREEWARDEN_FIXTURE_MAX_LIFETIME_MS';
/** Fixtures started by tests exit on their own after this, even if every cleanup failed. */
export const TEST_FIXTURE_LIFETIME_MS = 60_000;
/** How long to wait for a fixture's reports to appear (node start-up on a loaded 2-core box). */
export const REPORT_WAIT_MS = 15_000;

export interface ReportedProcess {
  readonly role: string;
  readonly pid: number;
  readonly ppid: number;
  readonly [extra: string]: unknown;
}

export interface SpawnedFixture {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The file the fixture and all its descendants report to. */
  readonly reportFile: string;
  readonly dir: string;
}

export interface SpawnFixtureOptions {
  /** Own session and process group (setsid), as the run supervisor starts workers. */
  readonly detached?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export function fixturePath(name: string): string {
  return join(FIXTURES_DIR, name);
}

/** A private temp dir; removed by `removeTempDir`. */
export function makeTempDir(prefix = 'tw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** An environment naming a private state dir (0700) of its own: a command that must not share the run's store. */
export function privateHome(prefix = 'tw-home-'): Record<string, string> {
  const home = makeTempDir(prefix);
  chmodSync(home, 0o700);
  return { TREEWARDEN_HOME: home };
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Starts fixture `name` (.mjs through node, anything else executed directly) and tracks it. */
export function spawnFixture(
  tracker: ProcessTracker,
  name: string,
  args: readonly string[] = [],
  options: SpawnFixtureOptions = {},
): SpawnedFixture {
  const dir = makeTempDir();
  const reportFile = join(dir, 'report.jsonl');
  const path = fixturePath(name);
  const [command, argv] = name.endsWith('.mjs') ? [process.execPath, [path, ...args]] : [path, [...args]];
  const spawnOptions: SpawnOptions = {
    detached: options.detached ?? false,
    stdio: 'ignore',
    cwd: options.cwd ?? dir,
    env: {
      ...process.env,
      [REPORT_ENV]: reportFile,
      [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
      ...options.env,
    },
  };
  const child = spawn(command, argv, spawnOptions);
  const pid = tracker.trackChild(child, { detached: options.detached ?? false });
  return { child, pid, reportFile, dir };
}

export function readReports(reportFile: string): ReportedProcess[] {
  let text: string;
  try {
    text = readFileSync(reportFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ReportedProcess);
}

/**
 * Waits until at least `count` processes reported (optionally only those with `role`), tracks
 * every reported pid (plus any `child`/`children`/`daemon` pids they name) and returns them.
 */
export async function readReportedPids(
  tracker: ProcessTracker,
  reportFile: string,
  count: number,
  options: { readonly role?: string; readonly timeoutMs?: number } = {},
): Promise<ReportedProcess[]> {
  const matching = await pollUntil(
    () => {
      const reports = readReports(reportFile).filter((r) => options.role === undefined || r.role === options.role);
      return reports.length >= count ? reports : null;
    },
    { deadlineMs: options.timeoutMs ?? REPORT_WAIT_MS, description: `${count} report(s) in ${reportFile}` },
  );
  for (const report of readReports(reportFile)) {
    tracker.trackPid(report.pid);
    for (const key of ['child', 'daemon']) if (typeof report[key] === 'number') tracker.trackPid(report[key] as number);
    if (Array.isArray(report.children)) for (const pid of report.children) tracker.trackPid(pid as number);
  }
  return matching;
}

/** Alive and not a zombie (a zombie counts as stopped). */
/**
 * A shell script that leaves a zombie and prints its pid: its child exits only once the shell has
 * exec'd `sleep SECONDS` (which never reaps). A child that exited before the exec could be reaped
 * by the shell itself on a loaded machine, and then no zombie would ever appear. Bounded wait.
 */
export function zombieLeavingScript(seconds: number): string {
  const waitForExec =
    'i=0; while [ "$i" -lt 500 ]; do read -r name < /proc/$$/comm || break; [ "$name" = sleep ] && break; i=$((i + 1)); sleep 0.01; done';
  return `(${waitForExec}) & echo $!; exec sleep ${seconds}`;
}

/**
 * A child that stays a zombie once killed: `sh` backgrounds `sleep 60`, prints its pid and execs
 * `sleep 600`, which never reaps. Resolves with the child's pid once it runs; both are tracked.
 */
export async function startZombieToBe(tracker: ProcessTracker): Promise<number> {
  const shell = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
  tracker.trackChild(shell);
  const pid = await new Promise<number>((resolve) =>
    shell.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  tracker.trackPid(pid);
  await pollUntil(() => isRunning(pid), { description: 'the child to be' });
  return pid;
}

export function isRunning(pid: number, startTime?: string): boolean {
  const entry = readProcEntry(pid);
  if (entry === null || entry.state === 'Z' || entry.state === 'X') return false;
  return startTime === undefined || entry.startTime === startTime;
}

export function startTimeOf(pid: number): string {
  const entry = readProcEntry(pid);
  if (entry === null) throw new Error(`startTimeOf: pid ${pid} is not running`);
  return entry.startTime;
}

/** The id Treewarden gives a live agent session, as `sessions` shows it and `--session` takes it. */
export function agentSessionId(agent: string, rootPid: number): string {
  return `${agent}-${rootPid}-${startTimeOf(rootPid)}`;
}

/** The identity of a running pid, as the kill and signal APIs take it. */
export function identityOf(pid: number): ProcessIdentity {
  return { pid, startTime: startTimeOf(pid) };
}

/** A NUL-terminated list as `/proc/PID/cmdline` holds it (`a\0b\0` → [a, b]), bytes kept as they are. */
export function splitNulTerminated(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0); end >= 0; end = bytes.indexOf(0, start)) {
    parts.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return parts;
}
