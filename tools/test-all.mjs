#!/usr/bin/env node
/**
 * `npm test`: the build, then the unit suite (vitest), the static checks and the e2e suite side by
 * side. Both suites mostly wait on real processes, so they share two cores well (measured: 9.8 min
 * one after the other, see the commit). But the e2e suite's `serve` watches the whole machine: it
 * would show, and its "Clean up all" could end, the unit suite's planted leaks and fake agents. So
 * it runs beside the unit suite only in a pid namespace of its own (`unshare --pid --mount-proc`,
 * as root, with tini as its init to reap what it adopts), where /proc holds its processes alone,
 * with a Docker Engine of its own (test-support/docker-engine.ts); anywhere else it runs after the
 * unit suite, alone, as before. Its output is held and printed once it ends, so the two suites'
 * lines never interleave.
 * A failed check prints its output at once; every step's status and time is summed up at the end,
 * and the exit status is 1 if any step failed (a failed build stops everything: nothing else can
 * test the code it did not build). A failed step whose output was not streamed has its last lines
 * repeated just above that summary (so are those of a Playwright run with flaky tests), and a
 * streamed step's lines that name a failed test (vitest's "FAIL file > test" and the error line
 * under it) are gathered as they pass and repeated there too: a CI record that keeps only the tail
 * of the log still names every test that failed (the held e2e output is printed long before the
 * unit suite ends, and a unit failure's own report scrolls past in its own lines).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stripVTControlCharacters } from 'node:util';
import { failureLineCollector } from './lib/failure-lines.mjs';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const CHECKS = ['typecheck:tests', 'lint', 'check:boundaries', 'test:security'];

/** How many of a failed step's last lines are repeated above the summary (Playwright's failure list). */
const FAILED_TAIL_LINES = 12;
/** Playwright's summary line of tests that passed only when retried. */
const FLAKY_LINE = /^\s+\d+ flaky\s*$/m;

const NAMESPACE = ['unshare', '--pid', '--fork', '--mount-proc', 'tini', '-s', '--'];
/** The command prefix of an own pid namespace, when this machine can make one (root, unshare, tini). */
function ownPidNamespace() {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const probe = spawnSync(NAMESPACE[0], [...NAMESPACE.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 });
  return probe.status === 0 ? NAMESPACE : null;
}

/**
 * Runs `npm run SCRIPT` (behind `prefix`, with `env` added); `streamed` output goes straight
 * through, `held` is printed when it ends, else it is kept for a failure.
 */
function runScript(script, streamed, { prefix = [], env = {}, held = false } = {}) {
  const started = performance.now();
  return new Promise((resolve) => {
    const command = [...prefix, NPM, 'run', '--silent', script];
    const child = spawn(command[0], command.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Piped, not inherited (see failureLineCollector): a terminal keeps its colours.
      env: { ...process.env, ...(streamed && process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}), ...env },
    });
    const output = [];
    const failures = streamed ? failureLineCollector() : null;
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ])
      from.on('data', (chunk) => {
        if (failures === null) output.push(chunk);
        else {
          to.write(chunk);
          failures.add(chunk);
        }
      });
    const finish = (code, error) => {
      const seconds = (performance.now() - started) / 1000;
      const ok = code === 0;
      if (held) {
        process.stdout.write(`\n── ${script}${prefix.length > 0 ? ' (in its own pid namespace)' : ''}:\n`);
        process.stdout.write(Buffer.concat(output));
      } else if (!ok && !streamed) {
        process.stdout.write(`\n── ${script} failed; its output:\n`);
        process.stdout.write(Buffer.concat(output));
      }
      if (error) process.stdout.write(`\n── ${script} could not start: ${error.message}\n`);
      const text = streamed ? '' : Buffer.concat(output).toString('utf8');
      // A Playwright run that passed only on a retry says "N flaky": that is repeated as well.
      const tail =
        failures !== null
          ? ok
            ? ''
            : failureSummary(failures.lines())
          : !ok || FLAKY_LINE.test(text)
            ? lastLines(text, FAILED_TAIL_LINES)
            : '';
      resolve({ script, ok, seconds, tail });
    };
    child.once('error', (error) => finish(null, error));
    child.once('close', (code) => finish(code));
  });
}

function failureSummary(lines) {
  return lines.length > 0 ? lines.join('\n') : '(no line named a failed test: see the output above)';
}

function lastLines(text, count) {
  const lines = stripVTControlCharacters(text).trimEnd().split('\n');
  return lines.slice(-count).join('\n');
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
  const namespace = ownPidNamespace();
  if (namespace === null) {
    const [unit, checks] = await Promise.all([runScript('test:unit', true), inSequence(CHECKS, false)]);
    results.push(unit, ...checks);
    results.push(await runScript('test:e2e', true));
  } else {
    const dockerDir = mkdtempSync(join(tmpdir(), 'tw-e2e-docker-'));
    const e2e = runScript('test:e2e', false, {
      prefix: namespace,
      env: { TREEWARDEN_TEST_DOCKER_DIR: dockerDir },
      held: true,
    });
    let e2eEnded = false;
    e2e.then(() => {
      e2eEnded = true;
    });
    const [unit, checks] = await Promise.all([runScript('test:unit', true), inSequence(CHECKS, false)]);
    results.push(unit, ...checks);
    if (!e2eEnded) process.stdout.write('\n── the unit suite is done; the e2e suite still runs\n');
    results.push(await e2e);
    // Its daemon died with the namespace (and its mounts with it): only files are left.
    rmSync(dockerDir, { recursive: true, force: true });
  }
}
const total = (performance.now() - started) / 1000;
for (const { script, ok, tail } of results)
  if (tail)
    process.stdout.write(
      `\n── the end of ${script}'s output (${ok ? 'it passed with flaky tests' : 'it failed'}):\n${tail}\n`,
    );
process.stdout.write('\nnpm test:\n');
for (const { script, ok, seconds } of results)
  process.stdout.write(`  ${ok ? 'ok  ' : 'FAIL'}  ${script.padEnd(18)} ${seconds.toFixed(1).padStart(7)} s\n`);
process.stdout.write(`  total ${total.toFixed(1)} s${build.ok ? '' : ' (the build failed: nothing else ran)'}\n`);
process.exitCode = results.every((result) => result.ok) ? 0 : 1;
