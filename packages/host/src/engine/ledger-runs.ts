/**
 * What the ledger says about each run, kept current by reading only what was appended since the
 * last look (one stat per poll while nothing changed). The host uses it for the facts a lease
 * file does not carry: a run's full command line and cwd (Retry), its timeout in records of
 * older lease files, and how it ended — whoever wrote the end (a guardian, the app, a CLI).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { parseLedger, type RunEndRecord, type RunStartRecord } from '@treewarden/engine/ledger/index';

/** Bytes read per refresh at most; a bigger backlog is caught up over the next polls. */
export const LEDGER_READ_CHUNK_BYTES = 4 * 1024 * 1024;

export interface LedgerRun {
  start?: RunStartRecord;
  /** The first end on record (a late duplicate changes nothing). */
  end?: RunEndRecord;
}

export interface LedgerRuns {
  /** Reads what was appended since the last call. */
  refresh(): void;
  get(runId: string): LedgerRun | undefined;
}

export function createLedgerRuns(ledgerFile: string): LedgerRuns {
  const runs = new Map<string, LedgerRun>();
  let offset = 0;
  let inode: number | null = null;
  // Kept as bytes: a chunk may end inside a multi-byte character.
  let partial: Buffer = Buffer.alloc(0);

  function reset(): void {
    runs.clear();
    offset = 0;
    partial = Buffer.alloc(0);
  }

  function absorb(bytes: Buffer): void {
    const lastNewline = bytes.lastIndexOf(0x0a);
    // Only whole lines: a record still being written (or torn) waits for its newline.
    const whole = lastNewline === -1 ? '' : bytes.subarray(0, lastNewline + 1).toString('utf8');
    partial = lastNewline === -1 ? bytes : bytes.subarray(lastNewline + 1);
    for (const record of parseLedger(whole).records) {
      if (record.kind !== 'run_start' && record.kind !== 'run_end') continue;
      const run = runs.get(record.runId) ?? {};
      if (record.kind === 'run_start') run.start ??= record;
      else run.end ??= record;
      runs.set(record.runId, run);
    }
  }

  function readFrom(size: number): void {
    const length = Math.min(size - offset, LEDGER_READ_CHUNK_BYTES);
    const buffer = Buffer.alloc(length);
    const fd = openSync(ledgerFile, 'r');
    try {
      const read = readSync(fd, buffer, 0, length, offset);
      offset += read;
      absorb(Buffer.concat([partial, buffer.subarray(0, read)]));
    } finally {
      closeSync(fd);
    }
  }

  return {
    refresh() {
      let size: number;
      let ino: number;
      try {
        ({ size, ino } = statSync(ledgerFile));
      } catch {
        reset(); // no ledger yet (or it was removed): nothing on record
        return;
      }
      // Replaced or truncated: read it again from the start.
      if (size < offset || ino !== inode) reset();
      inode = ino;
      if (size > offset) readFrom(size);
    },
    get: (runId) => runs.get(runId),
  };
}
