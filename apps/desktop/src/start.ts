/**
 * `npm start`: the desktop app where Electron can run; otherwise ONE line saying why, then the
 * same UI served on loopback exactly as `treewarden serve` does (URL first on stdout).
 * Flags: --no-open (do not open a browser in the fallback), --port N (fallback port).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveUntilSignal } from '@treewarden/host';
import { findDisplay, findElectronBinary, whyElectronCannotStart } from './node/electron-binary.js';

/** An Electron that dies this fast did not start (missing libraries, no GPU, bad sandbox). */
const EARLY_EXIT_MS = 5000;
const MAX_PORT = 65_535;
const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

function fallBackToServe(reason: string, port: number, open: boolean): Promise<void> {
  return serveUntilSignal({ port, open, notice: `treewarden: ${reason}; serving the UI on loopback instead` });
}

/** Resolves with Electron's exit code, or with a reason when it exited before really starting. */
function runElectron(binary: string): Promise<{ code: number } | { reason: string }> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(binary, [APP_DIR], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.once('error', (error) => resolve({ reason: `Electron could not be started (${error.message})` }));
    child.once('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (code !== 0 && signal === null && Date.now() - startedAt < EARLY_EXIT_MS) {
        resolve({ reason: `Electron exited at start-up with code ${code}` });
      } else resolve({ code: code ?? 1 });
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
  if ('code' in result) return result.code;
  await fallBackToServe(result.reason, port, open);
  return 0;
}

process.exitCode = await main();
