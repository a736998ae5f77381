/**
 * `treewarden export`: Prometheus GET /metrics (and with --otlp, OTLP/HTTP protobuf) of sessions,
 * leaks, alerts and kills, from the host's own observer; in the foreground until signalled, like
 * `watch`. A non-loopback --listen needs --allow-remote and --token-file (then every request
 * without the bearer token gets 401).
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_EXPORT_INTERVAL_SECONDS,
  DEFAULT_LISTEN,
  ExportInputError,
  MAX_EXPORT_INTERVAL_SECONDS,
  MIN_EXPORT_INTERVAL_SECONDS,
  PortInUseError,
  parseListen,
  parseOtlpUrl,
  remoteToken,
  startExporter,
} from '@treewarden/host';
import { parseSeconds, writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import type { CliCommand } from './command.js';

const USAGE =
  'treewarden export [--listen HOST:PORT] [--allow-remote --token-file FILE] [--otlp URL] [--interval SECONDS] [--session-labels]';
const OPTIONS = {
  listen: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'token-file': { type: 'string' },
  otlp: { type: 'string' },
  interval: { type: 'string' },
  'session-labels': { type: 'boolean' },
} as const;

function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function intervalOf(raw: string | undefined): number {
  const seconds = parseSeconds('--interval', raw) ?? DEFAULT_EXPORT_INTERVAL_SECONDS;
  if (seconds < MIN_EXPORT_INTERVAL_SECONDS || seconds > MAX_EXPORT_INTERVAL_SECONDS)
    throw new ExportInputError(
      `--interval ${seconds} is outside ${MIN_EXPORT_INTERVAL_SECONDS}…${MAX_EXPORT_INTERVAL_SECONDS} seconds`,
    );
  return seconds;
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  let options: Parameters<typeof startExporter>[0];
  try {
    const listen = parseListen(values.listen ?? DEFAULT_LISTEN);
    options = {
      listen,
      token: remoteToken(listen, values['allow-remote'] === true, values['token-file']),
      otlp: values.otlp === undefined ? null : parseOtlpUrl(values.otlp),
      intervalSeconds: intervalOf(values.interval),
      sessionLabels: values['session-labels'] === true,
    };
  } catch (error) {
    if (!(error instanceof ExportInputError)) throw error;
    await writeOut(process.stderr, `treewarden export: ${error.message}\n`);
    return EXIT_USAGE;
  }
  const stopped = nextStopSignal();
  let exporter: Awaited<ReturnType<typeof startExporter>>;
  try {
    exporter = await startExporter(options);
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    await writeOut(process.stderr, `treewarden export: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  const { address, port } = exporter.server;
  const host = address.includes(':') ? `[${address}]` : address;
  // The first stdout line is the scrape URL (tests and scripts read it; port 0 picks a free one).
  await writeOut(process.stdout, `http://${host}:${port}/metrics\n`);
  await writeOut(
    process.stderr,
    `treewarden: exporting on ${host}:${port}${options.otlp === null ? '' : ` and to ${options.otlp.href}`}; Ctrl-C stops it\n`,
  );
  await stopped;
  await exporter.close();
  return EXIT_OK;
}

export const exportCommand: CliCommand = {
  summary: 'export sessions, leaks, alerts and kills to Prometheus (/metrics) and OTLP',
  usage: USAGE,
  main,
};
