/**
 * Plants a tree that leaked from an earlier run: the serve's own ledger records a run that ended,
 * and a process carrying that run's cookie (and living in its run dir) is still alive. The host's
 * orphan scan must find it; the test removes it by its recorded pid if the UI did not.
 *
 * The leaked process stays a child of this test worker (in its own session), not of pid 1: other
 * suites on this shared machine clean every reparented process with an unknown cookie, and must
 * not win a race against this test.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ensureStateDir, resolveStateDir } from '@treewarden/engine';
import { recordPastRun } from '../../test-support/past-run.js';
import { HOME_ENV } from './env';
import { fixture } from './ui';

/** The planted process ends by itself after this long even if every cleanup fails. */
const LEAK_LIFETIME_MS = 120_000;

export interface PlantedLeak {
  runId: string;
  pid: number;
  remove(): void;
}

function readEnviron(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}

/** Records an ended run in the serve's ledger, as a previous session would have. */
function recordEndedRun(runId: string): string {
  const home = process.env[HOME_ENV];
  if (!home) throw new Error(`${HOME_ENV} is not set: the global setup did not start serve`);
  return recordPastRun(ensureStateDir(resolveStateDir({ TREEWARDEN_HOME: home })), runId, { command: 'node' });
}

export async function plantLeakedTree(): Promise<PlantedLeak> {
  const runId = `run-e2e-leaked-${process.pid}-${Date.now().toString(36)}`;
  const runDir = recordEndedRun(runId);
  const child = spawn(process.execPath, [fixture('run-forever.mjs'), 'leaked'], {
    cwd: runDir,
    detached: true,
    env: { ...process.env, TREEWARDEN_RUN_ID: runId, TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: String(LEAK_LIFETIME_MS) },
    stdio: 'ignore',
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the leaked fixture');
  return {
    runId,
    pid,
    remove() {
      // Only the process that still carries our cookie: never a reused pid.
      if (readEnviron(pid).includes(`TREEWARDEN_RUN_ID=${runId}`)) process.kill(pid, 'SIGKILL');
    },
  };
}
