/**
 * The guardian process (started by `openLease`, detached into its own session). Reads top to
 * bottom: ignore the terminal signals, become a subreaper, host the holder's runs, and when the
 * lease pipe reaches EOF (release, or the holder died by any signal) end everything and exit.
 *
 *   argv[2]: GuardianConfig as JSON. fd 3: the lease pipe. IPC channel: run requests/reports.
 */
import { appendFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { killTree } from '../kill/kill-tree.js';
import { readRunCookies } from '../membership/cookie.js';
import { startRun } from '../run/index.js';
import { EnvironBlock } from '../runtime/environment.js';
import { RUN_AS_NODE_ENV } from '../runtime/node-command.js';
import { ensureStateDir, type StatePaths } from '../state/state-dir.js';
import { readProcEntry, readProcTable } from '../table/linux-proc.js';
import { createContainment } from './containment.js';
import { createGuardian } from './guardian.js';
import { guardianLogPath } from './guardian-process.js';
import {
  type GuardianConfig,
  type GuardianMessage,
  LEASE_PIPE_FD,
  parseGuardianConfig,
  parseHolderMessage,
  RELEASE_TOKEN,
} from './protocol.js';

/** How often adopted orphans that became zombies are looked for and reaped. */
const REAP_INTERVAL_MS = 1000;
const IGNORED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

// The holder's terminal or group may be signalled; only lease EOF ends a guardian.
for (const signal of IGNORED_SIGNALS) process.on(signal, () => {});

/** A config or state dir the guardian cannot trust: nothing is started, the holder sees the exit. */
const EXIT_UNTRUSTED_START = 2;

function startUp(): { config: GuardianConfig; paths: StatePaths } {
  try {
    const config = parseGuardianConfig(process.argv[2] ?? '');
    return { config, paths: ensureStateDir(config.stateDir) };
  } catch (error) {
    process.stderr.write(`treewarden guardian: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(EXIT_UNTRUSTED_START);
  }
}

const { config, paths } = startUp();
const logFile = guardianLogPath(config);
const log = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
// Linux reads its start time from /proc; elsewhere (macOS, untested) the pid alone is recorded.
const self = { pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '' };
// Only needed to start the guardian under Electron; user runs must not inherit it (a scenario's
// runs carry their own copy in their spec's environment).
delete process.env[RUN_AS_NODE_ENV];

process.on('uncaughtException', (error) => log(`uncaught: ${error.stack ?? error.message}`));
process.on('unhandledRejection', (error) => log(`unhandled rejection: ${String(error)}`));

function send(message: GuardianMessage): void {
  // The holder may be dead; a message nobody reads is not an error.
  if (process.connected) process.send?.(message, undefined, undefined, () => {});
}

const containment = createContainment();
const guardian = createGuardian(config, {
  paths,
  self,
  containment,
  // The holder sends each run's whole environment (open-lease.ts): nothing of ours goes under it.
  startRun: (spec, environ) =>
    startRun(spec, { baseEnvironment: environ === undefined ? {} : new EnvironBlock(environ) }),
  killTree,
  readTable: readProcTable,
  readCookies: readRunCookies,
  send,
  log,
});
log(`guardian up for lease ${config.leaseId} (${containment.kind}, active=${containment.active})`);

process.on('message', (raw) => {
  const message = parseHolderMessage(raw);
  if (message !== null) guardian.handle(message);
  else log(`dropped an invalid message from the holder`);
});
// Disconnect alone means nothing: the lease pipe decides.
process.on('disconnect', () => log('IPC channel closed'));

const reaper = setInterval(() => guardian.reapTick(), REAP_INTERVAL_MS);
reaper.unref();

let received = '';
let ending = false;
const leasePipe = new Socket({ fd: LEASE_PIPE_FD, readable: true, writable: false });
leasePipe.setEncoding('utf8');
leasePipe.on('data', (chunk: string) => {
  received = (received + chunk).slice(-RELEASE_TOKEN.length);
});
leasePipe.on('error', (error) => log(`lease pipe error: ${error.message}`));
leasePipe.on('close', () => void endLease());

async function endLease(): Promise<void> {
  if (ending) return;
  ending = true;
  const reason = received === RELEASE_TOKEN ? 'released' : 'holder_died';
  log(`lease EOF (${reason}); ending runs`);
  try {
    const summary = await guardian.end(reason);
    log(`lease ended: ${summary.reports.length} tree kill(s), ${summary.survivors.length} survivor(s)`);
  } catch (error) {
    log(`ending the lease failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  process.exit(0);
}

send({ t: 'ready', guardian: self, subreaper: containment.active });
