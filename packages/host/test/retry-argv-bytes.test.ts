/**
 * An argv that is not text, end to end: `treewarden run` started with bytes that are not UTF-8
 * (by a shell, as a user's would), a real worker that writes the argv the kernel gave it, the
 * ledger's record of those bytes, and the app's Retry of that run, which must start the same
 * bytes again. Displays may show U+FFFD; what runs may not.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { decodeArgv, RUN_ID_ENV, readLedger, statePaths } from '@treewarden/engine';
import type { HostEvent } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_MAIN, CLI_RUN_TIMEOUT_MS, collectOutput } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  makeTempDir,
  pollUntil,
  removeTempDir,
  splitNulTerminated,
  useProcessTracker,
} from '../../../test-support/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import { createEngineHost, type EngineHost } from '../src/host.js';
import { EVENT_WAIT_MS, expectOk, invalidEvents, SLOW_TEST_MS, waitForRun } from './helpers.js';

const PROBE = fixturePath('proc-self-probe.mjs');
/**
 * The user's shell, written by hand (not the engine's shim): bytes FF FE, an argument ending in
 * two newlines (the sentinel keeps them from the command substitution), an empty one, and UTF-8.
 */
const SHELL_LINE = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  "a=$(printf '\\377\\376'); b=$(printf 'line\\n\\nx'); b=${b%x}",
  'exec "$0" "$1" run --timeout 60 -- "$2" "$3" "$a" "$b" "" \'zoë ☃\'',
].join('\n');
const EXPECTED_ARGV = [
  Buffer.from(process.execPath),
  Buffer.from(PROBE),
  Buffer.from([0xff, 0xfe]),
  Buffer.from('line\n\n'),
  Buffer.alloc(0),
  Buffer.from('zoë ☃'),
];

/** The probe's `cmdline` file: one entry per argument, each ending in NUL. */
function probedArgv(dir: string): Buffer[] {
  return splitNulTerminated(readFileSync(join(dir, 'cmdline')));
}

describe.skipIf(process.platform !== 'linux')('an argv that is not UTF-8', () => {
  const tracker = useProcessTracker();
  let host: EngineHost | null = null;
  const events: HostEvent[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    expect(invalidEvents(events)).toEqual([]);
    events.length = 0;
    await host?.close();
    host = null;
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  it(
    'runs byte for byte through `run`, is recorded losslessly in the ledger, and Retry starts the same bytes',
    async () => {
      const home = makeTempDir('tw-home-');
      const out = makeTempDir('tw-argv-');
      dirs.push(home, out);
      // The worker writes into its cwd (Retry keeps the cwd, never the environment).
      const cli = spawn('/bin/sh', ['-c', SHELL_LINE, process.execPath, CLI_MAIN, process.execPath, PROBE], {
        cwd: out,
        env: { ...process.env, TREEWARDEN_HOME: home, TW_PROBE_SECRET: `tw-secret-${process.pid}-${Date.now()}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tracker.trackChild(cli);
      const result = await collectOutput(cli, {
        description: 'treewarden run of the argv probe',
        timeoutMs: CLI_RUN_TIMEOUT_MS,
        killOnTimeout: true,
      });
      expect(result.stderr).toContain('treewarden: ok');
      expect(probedArgv(out)).toEqual(EXPECTED_ARGV);
      // The shim carries only the argv (the user's own): no variable of the environment is on a command line.
      expect(JSON.parse(readFileSync(join(out, 'secret-hits.json'), 'utf8'))).toEqual([]);

      const start = readLedger(statePaths(home).ledgerFile).records.find((record) => record.kind === 'run_start');
      expect(start?.kind).toBe('run_start');
      if (start?.kind !== 'run_start') return;
      expect(start.args[1]).toBe('\uFFFD\uFFFD'); // the display
      expect(decodeArgv(start.argvBase64 ?? [])).toEqual(EXPECTED_ARGV); // the record

      rmSync(join(out, 'cmdline'));
      host = createEngineHost({ port: createEnginePort({ stateDir: home }), pollIntervalMs: 250 });
      host.onEvent((event) => events.push(event));
      const ended = await waitForRun(events, start.runId, (run) => run.retry.available, 'the CLI run, retryable');
      const retried = expectOk<{ runId: string }>(await host.handle({ type: 'retryRun', runId: ended.id }));
      tracker.trackEnvMarker(RUN_ID_ENV, retried.runId);
      const again = await waitForRun(events, retried.runId, (run) => run.phase === 'ended', 'the retried run to end');
      expect(again.classification).toBe('ok');
      // A probe that throws is "not yet": the file appears once the retried worker wrote it.
      const retriedArgv = await pollUntil(() => probedArgv(out), {
        deadlineMs: EVENT_WAIT_MS,
        description: "the retry's probe",
      });
      expect(retriedArgv).toEqual(EXPECTED_ARGV);
      expect([again.command, ...again.args]).toEqual([ended.command, ...ended.args]);
    },
    SLOW_TEST_MS,
  );
});
