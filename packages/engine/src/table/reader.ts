/**
 * Picks the platform backend once, from a map with explicit fallbacks: Android is Linux; the BSDs
 * and illumos have a BSD-style `ps` that understands the macOS columns; Linux without a mounted
 * /proc (some minimal containers) falls back to `ps` too.
 */
import { existsSync } from 'node:fs';
import { createDarwinReader } from './darwin-ps.js';
import { createLinuxReader, type LinuxReaderOptions } from './linux-reader.js';
import type { TableReader } from './types.js';
import { createWindowsReader } from './windows.js';

/** What a display's poll may trade for cost (`LinuxReaderOptions.keepIdle`); decisions never ask for it. */
export interface TableReaderOptions {
  readonly keepIdle?: boolean;
}

function createProcOrPsReader(options: TableReaderOptions = {}): TableReader {
  const linux: LinuxReaderOptions = options.keepIdle === true ? { keepIdle: true } : {};
  if (existsSync('/proc/self/stat')) return createLinuxReader(linux);
  return { ...createDarwinReader(), platform: 'linux' };
}

function createPsReader(platform: NodeJS.Platform): () => TableReader {
  return () => ({ ...createDarwinReader(), platform });
}

const BACKENDS: Partial<Record<NodeJS.Platform, (options?: TableReaderOptions) => TableReader>> = {
  linux: createProcOrPsReader,
  android: createProcOrPsReader,
  darwin: () => createDarwinReader(),
  freebsd: createPsReader('freebsd'),
  openbsd: createPsReader('openbsd'),
  netbsd: createPsReader('netbsd'),
  sunos: createPsReader('sunos'),
  win32: () => createWindowsReader(),
};

export function createTableReader(
  platform: NodeJS.Platform = process.platform,
  options: TableReaderOptions = {},
): TableReader {
  const create = BACKENDS[platform];
  if (create === undefined) {
    const supported = Object.keys(BACKENDS).join(', ');
    throw new Error(`createTableReader: no process table reader for platform "${platform}" (supported: ${supported})`);
  }
  return create(options);
}
