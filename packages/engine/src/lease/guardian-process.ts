/**
 * Starting the guardian process: detached (own session and group, outside the holder's), with
 * the lease pipe at fd 3 and an IPC channel, then waiting (bounded) for its "ready".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { engineDistFile } from '../runtime/engine-files.js';
import { nodeCommand } from '../runtime/node-command.js';
import { statePaths } from '../state/state-dir.js';
import { type GuardianConfig, type GuardianMessage, parseGuardianMessage } from './protocol.js';

/** Node start-up of the guardian on a loaded machine. */
export const GUARDIAN_READY_TIMEOUT_MS = 30_000;
/** The bundled entry (rolldown.config.mjs), whether this module runs from src, dist or a bundle. */
export const GUARDIAN_ENTRY = engineDistFile('bundle/guardian.js');

/**
 * What the guardian keeps of its holder's environment: its runs get theirs in each start message
 * (open-lease.ts), so it needs only what it uses itself (PATH for the table's and getconf's
 * commands, locale and temp dir, Node's own options for profiling and coverage). A 620 kB
 * environment would otherwise cost its spawn and its Node start-up on every `run`.
 */
export const GUARDIAN_ENV_KEYS = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TZ',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'NODE_OPTIONS',
  'NODE_V8_COVERAGE',
  'SystemRoot',
] as const;

/** The few variables of `environment` the guardian starts with: one lookup each, never a copy. */
export function guardianEnvironment(environment: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of GUARDIAN_ENV_KEYS) {
    const value = environment[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** `environment`: where the guardian's few variables (GUARDIAN_ENV_KEYS) are taken from. */
export function spawnGuardian(
  config: GuardianConfig,
  output: 'inherit' | 'ignore',
  environment: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  if (!existsSync(GUARDIAN_ENTRY)) {
    throw new Error(`lease guardian entry ${GUARDIAN_ENTRY} is missing: build first (npm run build)`);
  }
  // Under Electron, execPath is the app binary: the helper makes it run the entry as Node.
  const node = nodeCommand();
  // Not inheriting: the guardian's own crash output (and its runs' inherited output) goes to the lease log.
  const logFd = output === 'ignore' ? openSync(guardianLogPath(config), 'a', 0o600) : null;
  try {
    return spawn(node.command, [GUARDIAN_ENTRY, JSON.stringify(config)], {
      detached: true,
      cwd: config.stateDir,
      env: { ...guardianEnvironment(environment), ...node.env },
      stdio: ['ignore', logFd ?? 'inherit', logFd ?? 'inherit', 'pipe', 'ipc'],
    });
  } finally {
    if (logFd !== null) closeSync(logFd);
  }
}

/** The guardian's log: its own lines, and its stdout/stderr when not inherited. */
export function guardianLogPath(config: Pick<GuardianConfig, 'stateDir' | 'leaseId'>): string {
  return join(statePaths(config.stateDir).leasesDir, `${config.leaseId}.log`);
}

export function waitForReady(child: ChildProcess): Promise<Extract<GuardianMessage, { t: 'ready' }>> {
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(
      () => fail(`did not report ready within ${GUARDIAN_READY_TIMEOUT_MS} ms`),
      GUARDIAN_READY_TIMEOUT_MS,
    );
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`lease guardian ${why}; see the lease log under the state dir`));
    };
    const onError = (error: Error) => fail(`failed to start: ${error.message}`);
    const onExit = (code: number | null, signal: string | null) =>
      fail(`exited during start-up (code ${code}, signal ${signal})`);
    const onMessage = (raw: unknown) => {
      const message = parseGuardianMessage(raw);
      if (message === null || message.t !== 'ready') return;
      clearTimeout(timer);
      child.off('error', onError).off('exit', onExit).off('message', onMessage);
      resolveReady(message);
    };
    child.once('error', onError).once('exit', onExit).on('message', onMessage);
  });
}
