/**
 * Picks the port backend once, from a platform map: Linux (and Android) read /proc; macOS and
 * the BSDs run a bounded lsof. Windows has none yet and says so.
 */
import { existsSync } from 'node:fs';
import { createDarwinPortReader } from './darwin-lsof.js';
import { createLinuxPortReader } from './linux-ports.js';
import { createCachedLinuxPortReader } from './linux-ports-cached.js';
import { type PortReader, PortsUnsupportedError } from './types.js';

export interface PortReaderOptions {
  /**
   * For a view that reads every process's ports again and again: on Linux, readAll rescans only
   * new processes and checks known listeners by their fds (linux-ports-cached.ts). Commands that
   * act on a port keep the exact reader.
   */
  readonly cached?: boolean;
  /** With `cached`: start times from a table the caller just read (see CachedPortReaderOptions). */
  readonly startTimeHint?: (pid: number) => string | undefined;
  /** With `cached`: the pids of that table (see CachedPortReaderOptions). */
  readonly pidsHint?: () => Iterable<number> | undefined;
}

function createProcOrLsofReader(options: PortReaderOptions): PortReader {
  if (existsSync('/proc/net/tcp'))
    return options.cached
      ? createCachedLinuxPortReader({ startTimeHint: options.startTimeHint, pidsHint: options.pidsHint })
      : createLinuxPortReader();
  return { ...createDarwinPortReader(), platform: 'linux' };
}

function createLsofReader(platform: NodeJS.Platform): () => PortReader {
  return () => ({ ...createDarwinPortReader(), platform });
}

const BACKENDS: Partial<Record<NodeJS.Platform, (options: PortReaderOptions) => PortReader>> = {
  linux: createProcOrLsofReader,
  android: createProcOrLsofReader,
  darwin: () => createDarwinPortReader(),
  freebsd: createLsofReader('freebsd'),
  openbsd: createLsofReader('openbsd'),
  netbsd: createLsofReader('netbsd'),
};

export function createPortReader(
  platform: NodeJS.Platform = process.platform,
  options: PortReaderOptions = {},
): PortReader {
  const create = BACKENDS[platform];
  if (create === undefined) {
    const supported = Object.keys(BACKENDS).join(', ');
    const hint = platform === 'win32' ? ' (Windows is not supported yet: use `netstat -ano` or Resource Monitor)' : '';
    throw new PortsUnsupportedError(`no port reader for platform "${platform}"${hint}; supported: ${supported}`);
  }
  return create(options);
}
