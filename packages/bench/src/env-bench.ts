/**
 * `run` start-up against the size of the environment, side by side with a plain spawn of the same
 * environment. Node's `process.env` is quadratic to copy (engine runtime/environment.ts): before
 * the fix a `run` under 20,000 variables took ~6 s to start its worker. Timed from spawning the
 * CLI (`treewarden run -- sh -c 'echo up'`) to the worker's line on the CLI's stdout; the peer is
 * `spawn('sh', ['-c', 'echo up'], { env })` from this process, timed the same way. Both get the
 * environment as a plain object (so the peer is linear too). The target is on the growth: what
 * 20,000 variables add to `run`'s start-up beyond what they add to the plain spawn (≤ 50 ms).
 * A bare `node -e` under the same environment is timed beside them: the CLI's own Node start-up
 * is the one cost a plain spawn does not have (measured: it grows about as a plain spawn does,
 * since the environment's cost is the parent's spawn, paid by both, so the floor stays plain).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clockTicks, parseLedger } from '@treewarden/engine';
import { childrenCpuMs, formatMs, markdownTable, median } from './util.js';

const CLI_MAIN = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const SIZES = [0, 5_000, 20_000] as const;
const ROUNDS = 9;
/** Bound on one start (node start-up of the CLI and its guardian on a loaded 2-core machine). */
const START_TIMEOUT_MS = 60_000;
const TARGET_GROWTH_MS = 50;
const WORKER = ['sh', '-c', 'echo up'] as const;
const STATE_ENV = 'TREEWARDEN_HOME';

function environmentOf(size: number, stateDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key in process.env) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env[STATE_ENV] = stateDir;
  for (let i = 0; i < size; i += 1) env[`TW_BENCH_VAR_${i}`] = `value-${i}`;
  return env;
}

/** ms from spawn to the first "up" on stdout; then waits for the child to close. */
function timeToUp(command: string, args: readonly string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let upAt: number | null = null;
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`env bench: ${command} did not start its worker within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (upAt === null && output.includes('up')) upAt = performance.now() - started;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (upAt === null || code !== 0) reject(new Error(`env bench: ${command} ended ${code} without "up"`));
      else resolve(upAt);
    });
  });
}

/** Who is timed in each round: the CLI, and the two peers run the same way. */
const CONTENDERS = ['run', 'plain', 'node', 'baseline'] as const;
type Contender = (typeof CONTENDERS)[number];
/**
 * `BENCH_BASELINE_CLI=<another build's apps/cli/dist/main.js>`: that build's `run` is timed in the
 * same rounds (before/after under the same load), on the same private state dir.
 */
const BASELINE_CLI = process.env.BENCH_BASELINE_CLI;
const ACTIVE: readonly Contender[] = BASELINE_CLI === undefined ? ['run', 'plain', 'node'] : CONTENDERS;

/** One round's times at one size, and where `run`'s went (the ledger's start ticks). */
interface Sample {
  readonly times: Record<Contender, number>;
  /** CPU ms of the contender's whole tree (reaped children: the CLI, its guardian, the worker) and of this process meanwhile. */
  readonly cpu: Record<Contender, number>;
  readonly phases: Phases | null;
}

/**
 * Spawn → guardian start (the CLI's own start-up, up to its spawn of the guardian), guardian
 * start → worker start (the guardian's start-up and the launch), and the rest (the worker's own
 * start-up to its line, and the pipe). From the start times the ledger records, in clock ticks.
 */
interface Phases {
  readonly cli: number;
  readonly guardian: number;
  readonly worker: number;
}

function timeOnce(who: Contender, env: Record<string, string>): Promise<number> {
  if (who === 'run' || who === 'baseline') {
    const cli = who === 'run' ? CLI_MAIN : (BASELINE_CLI ?? CLI_MAIN);
    return timeToUp(process.execPath, [cli, 'run', '--timeout', '60', '--', ...WORKER], env);
  }
  if (who === 'plain') return timeToUp(WORKER[0], WORKER.slice(1), env);
  // A Node start-up under the same environment: what the CLI's own start costs beside a plain spawn.
  return timeToUp(process.execPath, ['-e', "process.stdout.write('up')"], env);
}

/** The last run's phases from its ledger records (holder, guardian and root start ticks). */
function lastRunPhases(stateDir: string, totalMs: number, tickMs: number): Phases | null {
  let text: string;
  try {
    text = readFileSync(join(stateDir, 'ledger.jsonl'), 'utf8');
  } catch {
    return null;
  }
  const records = parseLedger(text).records;
  const lease = records.findLast((r) => r.kind === 'lease_start');
  const run = records.findLast((r) => r.kind === 'run_start');
  if (lease?.kind !== 'lease_start' || run?.kind !== 'run_start' || run.startTime === null) return null;
  const holder = Number(lease.holder.startTime);
  const guardian = Number(lease.guardian.startTime);
  const worker = Number(run.startTime);
  const cli = (guardian - holder) * tickMs;
  const launch = (worker - guardian) * tickMs;
  return { cli, guardian: launch, worker: totalMs - cli - launch };
}

async function sampleRound(size: number, round: number, stateDir: string, tickMs: number): Promise<Sample> {
  const ticksPerSecond = 1000 / tickMs;
  const env = environmentOf(size, stateDir);
  // Rotating who goes first, so background noise lands on each alike.
  const order = ACTIVE.map((_, i) => ACTIVE[(i + round) % ACTIVE.length] as Contender);
  const times = { run: 0, plain: 0, node: 0, baseline: Number.NaN };
  const cpu = { ...times };
  let phases: Phases | null = null;
  for (const who of order) {
    // This process's own CPU too: a plain spawn converts the environment here, `run`'s guardian in its own.
    const ownBefore = process.cpuUsage();
    const cpuBefore = childrenCpuMs(ticksPerSecond);
    times[who] = await timeOnce(who, env);
    const own = process.cpuUsage(ownBefore);
    cpu[who] = childrenCpuMs(ticksPerSecond) - cpuBefore + (own.user + own.system) / 1000;
    if (who === 'run') phases = lastRunPhases(stateDir, times.run, tickMs);
  }
  return { times, cpu, phases };
}

interface SizeSummary {
  readonly size: number;
  readonly times: Record<Contender, number>;
  /** Per round, this size's time minus the same round's time at 0 variables; median over rounds. */
  readonly growth: Record<Contender, number>;
  readonly beyondPlain: number;
  /** The same for the build at BENCH_BASELINE_CLI (NaN without one). */
  readonly baselineBeyondPlain: number;
  /** The same growth beyond plain in CPU time, which the machine's load inflates far less. */
  readonly cpuBeyondPlain: Record<'run' | 'baseline', number>;
  readonly phases: Phases | null;
}

function medianOf(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : median(values);
}

function summarize(size: number, samples: readonly Sample[], base: readonly Sample[]): SizeSummary {
  const pick = (who: Contender) => samples.map((s) => s.times[who]);
  const grow = (who: Contender) => samples.map((s, i) => s.times[who] - (base[i]?.times[who] ?? 0));
  const cpuBeyondOf = (who: Contender) =>
    samples.map((s, i) => s.cpu[who] - (base[i]?.cpu[who] ?? 0) - (s.cpu.plain - (base[i]?.cpu.plain ?? 0)));
  const beyondOf = (who: Contender) =>
    samples.map((s, i) => s.times[who] - (base[i]?.times[who] ?? 0) - (s.times.plain - (base[i]?.times.plain ?? 0)));
  const phases = samples.map((s) => s.phases).filter((p): p is Phases => p !== null);
  return {
    size,
    times: {
      run: medianOf(pick('run')),
      plain: medianOf(pick('plain')),
      node: medianOf(pick('node')),
      baseline: medianOf(pick('baseline')),
    },
    growth: {
      run: medianOf(grow('run')),
      plain: medianOf(grow('plain')),
      node: medianOf(grow('node')),
      baseline: medianOf(grow('baseline')),
    },
    beyondPlain: medianOf(beyondOf('run')),
    baselineBeyondPlain: medianOf(beyondOf('baseline')),
    cpuBeyondPlain: { run: medianOf(cpuBeyondOf('run')), baseline: medianOf(cpuBeyondOf('baseline')) },
    phases:
      phases.length === 0
        ? null
        : {
            cli: medianOf(phases.map((p) => p.cli)),
            guardian: medianOf(phases.map((p) => p.guardian)),
            worker: medianOf(phases.map((p) => p.worker)),
          },
  };
}

const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${formatMs(ms)}`;

export async function runEnvBench(): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tw-env-bench-'));
  const tickMs = 1000 / clockTicks();
  try {
    // Every round times every size, so a change of load lands on a round's sizes alike; growth is
    // taken within a round (against the same round's 0), then the median over rounds.
    const samples: Sample[][] = SIZES.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, size] of SIZES.entries())
        samples[index]?.push(await sampleRound(size, round, stateDir, tickMs));
    }
    const base = samples[0] ?? [];
    const results = SIZES.map((size, index) => summarize(size, samples[index] ?? [], base));
    const rows = results.map((r) => [
      r.size.toLocaleString('en-US'),
      formatMs(r.times.plain),
      formatMs(r.times.node),
      formatMs(r.times.run),
      signed(r.growth.plain),
      signed(r.growth.node),
      signed(r.growth.run),
      signed(r.beyondPlain),
      ...(BASELINE_CLI === undefined ? [] : [formatMs(r.times.baseline), signed(r.baselineBeyondPlain)]),
    ]);
    const phaseRows = results.map((r) => [
      r.size.toLocaleString('en-US'),
      r.phases === null ? '-' : formatMs(r.phases.cli),
      r.phases === null ? '-' : formatMs(r.phases.guardian),
      r.phases === null ? '-' : formatMs(r.phases.worker),
    ]);
    const largest = results[results.length - 1] as SizeSummary;
    const verdict = largest.beyondPlain <= TARGET_GROWTH_MS ? 'PASS' : 'FAIL';
    const cpuVerdict = largest.cpuBeyondPlain.run <= TARGET_GROWTH_MS ? 'PASS' : 'FAIL';
    return [
      `Median of ${ROUNDS} rounds, spawn → the worker's first line, the environment as a plain object for all.`,
      'Growth: per round against the same round at 0 variables. `node -e`: a bare Node start-up under the same',
      "environment (what the CLI's own start adds beside a plain spawn; not part of the floor).",
      '',
      markdownTable(
        [
          'variables',
          'plain spawn ms',
          '`node -e` ms',
          '`run` ms',
          'plain growth',
          '`node -e` growth',
          '`run` growth',
          '`run` growth beyond plain',
          ...(BASELINE_CLI === undefined ? [] : ['baseline `run` ms', 'baseline growth beyond plain']),
        ],
        rows,
      ),
      '',
      `Where \`run\`'s time goes (median ms, from the ledger's start ticks, ${formatMs(tickMs)} ms each):`,
      '',
      markdownTable(
        ['variables', 'spawn → guardian start (CLI)', 'guardian start → worker start', 'worker start → its line'],
        phaseRows,
      ),
      '',
      `${verdict}: ${largest.size.toLocaleString('en-US')} variables add ${formatMs(largest.beyondPlain)} ms to \`run\` beyond what they add to a plain spawn (target ≤ ${TARGET_GROWTH_MS} ms)`,
      `${cpuVerdict} (CPU): ${largest.size.toLocaleString('en-US')} variables add ${formatMs(largest.cpuBeyondPlain.run)} ms of CPU (CLI + guardian + worker) beyond what they add to a plain spawn's (target ≤ ${TARGET_GROWTH_MS} ms)`,
      ...(BASELINE_CLI === undefined
        ? []
        : [
            `Baseline build (${BASELINE_CLI}), same rounds: ${formatMs(largest.baselineBeyondPlain)} ms beyond plain, ${formatMs(largest.cpuBeyondPlain.baseline)} ms of CPU`,
          ]),
    ].join('\n');
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
