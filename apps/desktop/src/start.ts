/**
 * `npm start`: the desktop app where Electron can run; otherwise ONE line saying why, then the
 * same UI served on loopback exactly as `treewarden serve` does (URL first on stdout). "Cannot
 * run" includes an Electron that started and ended, by any exit status or signal, before its
 * window came up (e.g. SIGTRAP from Chromium's sandbox check).
 * Flags: --no-open (do not open a browser in the fallback), --port N (fallback port).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveUntilSignal } from '@treewarden/host';
import { findDisplay, findElectronBinary, whyElectronCannotStart } from './node/electron-binary.js';
import { describeFailedStart, exitStatusOf } from './node/electron-exit.js';
import { readyFileArg } from './node/ready-signal.js';

const MAX_PORT = 65_535;
const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

function fallBackToServe(reason: string, port: number, open: boolean): Promise<void> {
  return serveUntilSignal({ port, open, notice: `treewarden: ${reason}; serving the UI on loopback instead` });
}

type ElectronResult =
  | { readonly cameUp: true; readonly status: number }
  | { readonly cameUp: false; readonly reason: string };

/**
 * Runs Electron to its end. It came up once the main process created the ready file; an end
 * before that, by any exit status or signal, is a start that failed.
 */
function runElectron(binary: string): Promise<ElectronResult> {
  const readyDir = mkdtempSync(join(tmpdir(), 'treewarden-start-'));
  const readyFile = join(readyDir, 'ready');
  return new Promise<ElectronResult>((resolve) => {
    const child = spawn(binary, [APP_DIR, readyFileArg(readyFile)], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const settle = (result: ElectronResult) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      rmSync(readyDir, { recursive: true, force: true });
      resolve(result);
    };
    child.once('error', (error) =>
      settle({ cameUp: false, reason: `Electron could not be started (${error.message})` }),
    );
    child.once('exit', (code, signal) => {
      if (existsSync(readyFile)) settle({ cameUp: true, status: exitStatusOf(code, signal) });
      else settle({ cameUp: false, reason: describeFailedStart(code, signal) });
    });
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'no-open': { type: 'boolean' }, port: { type: 'string' } }, strict: true });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    process.stderr.write(`start: --port ${JSON.stringify(values.port)} is not a port number (0 to ${MAX_PORT})\n`);
    return 2;
  }
  const open = values['no-open'] !== true;
  const probe = findElectronBinary();
  const reason = whyElectronCannotStart(probe, findDisplay());
  if (reason !== null || !probe.ok) {
    await fallBackToServe(reason ?? 'Electron is unavailable', port, open);
    return 0;
  }
  const result = await runElectron(probe.binary);
  if (result.cameUp) return result.status;
  await fallBackToServe(result.reason, port, open);
  return 0;
}

process.exitCode = await main();
