/** Starting runs in tests (with the real tree owner unless a test injects one): every process a run starts carries its cookie, which the tracker ends at cleanup. */
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type RunDeps, startRun } from '../../src/run/start-run.js';
import { RUN_ID_ENV, type Run, type RunSpec } from '../../src/run/types.js';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  type ProcessTracker,
  REPORT_ENV,
  removeTempDir,
  TEST_FIXTURE_LIFETIME_MS,
} from '../helpers/index.js';

/** Test runs get a short grace: the workers here either die on SIGTERM or are meant to be SIGKILLed. */
export const TEST_GRACE_SECONDS = 0.5;

export function startTracked(tracker: ProcessTracker, spec: RunSpec, deps: RunDeps = {}): Run {
  const run = startRun({ graceSeconds: TEST_GRACE_SECONDS, ...spec }, deps);
  tracker.trackEnvMarker(RUN_ID_ENV, run.id);
  if (run.identity !== null) {
    tracker.trackPid(run.identity.pid);
    tracker.trackGroup(run.identity.pid);
  }
  return run;
}

/** `node FIXTURE args…` as a run spec. */
export function nodeFixture(name: string, args: readonly string[] = []): Pick<RunSpec, 'command' | 'args'> {
  return { command: process.execPath, args: [fixturePath(name), ...args] };
}

/** `node -e SCRIPT` as a run spec. */
export function nodeScript(script: string, args: readonly string[] = []): Pick<RunSpec, 'command' | 'args'> {
  return { command: process.execPath, args: ['-e', script, ...args] };
}

/** A fresh temp dir per call with a report file and the env that points fixtures at it (bounded lifetime); the dirs go after each test. */
export interface FixtureEnv {
  readonly dir: string;
  readonly reportFile: string;
  readonly env: Record<string, string>;
}

/** Call inside a describe (after useProcessTracker, so dirs are removed before the tracker's cleanup, as before). */
export function useFixtureEnv(): () => FixtureEnv {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });
  return () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const reportFile = join(dir, 'report.jsonl');
    return { dir, reportFile, env: { [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) } };
  };
}
