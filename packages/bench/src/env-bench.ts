/**
 * `run` start-up against the size of the environment, side by side with a plain spawn of the same
 * environment. Node's `process.env` is quadratic to copy (engine runtime/environment.ts): before
 * the fix a `run` under 20,000 variables took ~6 s to start its worker. Timed from spawning the
 * CLI (`treewarden run -- sh -c 'echo up'`) to the worker's line on the CLI's stdout; the peer is
 * `spawn('sh', ['-c', 'echo up'], { env })` from this process, timed the same way. Both get the
 * environment as a plain object (so the peer is linear too). The target is on the growth: what
 * 20,000 variables add to `run`'s start-up beyond what they add to the plain spawn (≤ 50 ms).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatMs, markdownTable, median } from './util.js';

const CLI_MAIN = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const SIZES = [0, 5_000, 20_000] as const;
const ROUNDS = 5;
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

interface SizeResult {
  readonly size: number;
  readonly run: number;
  readonly plain: number;
}

async function measureSize(size: number, stateDir: string): Promise<SizeResult> {
  const env = environmentOf(size, stateDir);
  const run: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternating who goes first, so background noise lands on both alike.
    const order = round % 2 === 0 ? ['run', 'plain'] : ['plain', 'run'];
    for (const who of order) {
      if (who === 'run')
        run.push(await timeToUp(process.execPath, [CLI_MAIN, 'run', '--timeout', '60', '--', ...WORKER], env));
      else plain.push(await timeToUp(WORKER[0], WORKER.slice(1), env));
    }
  }
  return { size, run: median(run), plain: median(plain) };
}

export async function runEnvBench(): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tw-env-bench-'));
  try {
    const results: SizeResult[] = [];
    for (const size of SIZES) results.push(await measureSize(size, stateDir));
    const base = results[0] as SizeResult;
    const rows = results.map((r) => [
      r.size.toLocaleString('en-US'),
      formatMs(r.plain),
      formatMs(r.run),
      `+${formatMs(r.plain - base.plain)}`,
      `+${formatMs(r.run - base.run)}`,
      formatMs(r.run - base.run - (r.plain - base.plain)),
    ]);
    const largest = results[results.length - 1] as SizeResult;
    const extra = largest.run - base.run - (largest.plain - base.plain);
    const verdict = extra <= TARGET_GROWTH_MS ? 'PASS' : 'FAIL';
    return [
      `Median of ${ROUNDS}, spawn → the worker's first line, the environment as a plain object for both.`,
      '',
      markdownTable(
        ['variables', 'plain spawn ms', '`run` ms', 'plain growth', '`run` growth', '`run` growth beyond plain'],
        rows,
      ),
      '',
      `${verdict}: ${largest.size.toLocaleString('en-US')} variables add ${formatMs(extra)} ms to \`run\` beyond what they add to a plain spawn (target ≤ ${TARGET_GROWTH_MS} ms)`,
    ].join('\n');
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
