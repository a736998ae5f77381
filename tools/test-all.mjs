#!/usr/bin/env node
/**
 * `npm test`: the build, then the unit suite (vitest) with the static checks in a lane beside it,
 * then the e2e suite alone. The unit suite mostly waits on real processes, so the CPU-bound checks
 * fit in its idle time; the e2e suite never overlaps it, because its `serve` watches the whole
 * machine and would show (and could clean up) the unit suite's planted leaks and fake agents.
 * A failed check prints its output at once; every step's status and time is summed up at the end,
 * and the exit status is 1 if any step failed (a failed build stops everything: nothing else can
 * test the code it did not build).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const CHECKS = ['typecheck:tests', 'lint', 'check:boundaries', 'test:security'];

/** Runs `npm run SCRIPT`; `streamed` output goes straight through, else it is kept for a failure. */
function runScript(script, streamed) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(NPM, ['run', '--silent', script], { stdio: streamed ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    const finish = (code, error) => {
      const seconds = (performance.now() - started) / 1000;
      const ok = code === 0;
      if (!ok && !streamed) {
        process.stdout.write(`\n── ${script} failed; its output:\n`);
        process.stdout.write(Buffer.concat(output));
      }
      if (error) process.stdout.write(`\n── ${script} could not start: ${error.message}\n`);
      resolve({ script, ok, seconds });
    };
    child.once('error', (error) => finish(null, error));
    child.once('close', (code) => finish(code));
  });
}

async function inSequence(scripts, streamed) {
  const results = [];
  for (const script of scripts) results.push(await runScript(script, streamed));
  return results;
}

const started = performance.now();
const results = [];
const build = await runScript('build', true);
results.push(build);
if (build.ok) {
  const [unit, checks] = await Promise.all([runScript('test:unit', true), inSequence(CHECKS, false)]);
  results.push(unit, ...checks);
  results.push(await runScript('test:e2e', true));
}
const total = (performance.now() - started) / 1000;
process.stdout.write('\nnpm test:\n');
for (const { script, ok, seconds } of results)
  process.stdout.write(`  ${ok ? 'ok  ' : 'FAIL'}  ${script.padEnd(18)} ${seconds.toFixed(1).padStart(7)} s\n`);
process.stdout.write(`  total ${total.toFixed(1)} s${build.ok ? '' : ' (the build failed: nothing else ran)'}\n`);
process.exitCode = results.every((result) => result.ok) ? 0 : 1;
