/**
 * `--listen HOST:PORT` and `--otlp URL` checked before anything starts: a bad value is one line
 * (the CLI exits 2), and a non-loopback address needs `--allow-remote` with a token file.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

export const DEFAULT_LISTEN = '127.0.0.1:9464';
const MAX_PORT = 65_535;
/** A token shorter than this is a guessable one. */
export const MIN_TOKEN_CHARS = 16;
const MAX_TOKEN_CHARS = 4096;

export class ExportInputError extends Error {}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export function parseListen(raw: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(raw);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !(port >= 0 && port <= MAX_PORT) || (isIP(host) === 0 && host !== 'localhost'))
    throw new ExportInputError(
      `--listen ${JSON.stringify(raw)} is not HOST:PORT (an IP address or localhost, port 0 to ${MAX_PORT})`,
    );
  return { host, port };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

export function parseOtlpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ExportInputError(`--otlp ${JSON.stringify(raw)} is not a URL (e.g. http://collector:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ExportInputError(`--otlp ${JSON.stringify(raw)} must be http:// or https:// (OTLP/HTTP)`);
  return url;
}

/** The bearer token for a remote listener; refused unless both --allow-remote and a usable token file are given. */
export function remoteToken(listen: ListenAddress, allowRemote: boolean, tokenFile: string | undefined): string | null {
  if (isLoopback(listen.host)) return tokenFile === undefined ? null : readToken(tokenFile);
  if (!allowRemote || tokenFile === undefined)
    throw new ExportInputError(
      `--listen ${listen.host} is not a loopback address: give --allow-remote and --token-file FILE (a bearer token) too`,
    );
  return readToken(tokenFile);
}

function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ExportInputError(`--token-file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (text.length < MIN_TOKEN_CHARS || text.length > MAX_TOKEN_CHARS || /\s/.test(text))
    throw new ExportInputError(
      `--token-file ${file}: the token must be one word of ${MIN_TOKEN_CHARS} to ${MAX_TOKEN_CHARS} characters`,
    );
  return text;
}
