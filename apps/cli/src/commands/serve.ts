/**
 * `treewarden serve [--port N] [--no-open]`: the desktop UI in a browser, over a token-protected
 * WebSocket on 127.0.0.1 only. The URL (token included) is the first line on stdout.
 */
import { parseArgs } from 'node:util';
import { serveUntilSignal } from '@treewarden/host';
import { EXIT_OK } from '../exit-codes.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE = 'treewarden serve [--port N] [--no-open]';
const OPTIONS = { port: { type: 'string' }, 'no-open': { type: 'boolean' } } as const;
const MAX_PORT = 65_535;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > MAX_PORT) {
    throw new UsageError(`--port ${JSON.stringify(raw)} is not a port number (0 to ${MAX_PORT}; 0 picks a free one)`);
  }
  return value;
}

export const serveCommand: CliCommand = {
  summary: 'serve the UI on 127.0.0.1 (token-protected) and open a browser',
  usage: USAGE,
  async main(argv) {
    const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
    await serveUntilSignal({ port: parsePort(values.port), open: values['no-open'] !== true });
    return EXIT_OK;
  },
};
