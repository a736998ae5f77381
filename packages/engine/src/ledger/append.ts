/**
 * The ledger writer: one record per `write(2)` on an O_APPEND descriptor, then `fdatasync`.
 *
 * Why concurrent writers never interleave: on Linux an O_APPEND write to a regular file moves the
 * offset to the end and copies the buffer under the inode lock, so two processes' single writes
 * land one after the other, never mixed (PIPE_BUF is a pipe rule and does not apply here). A
 * record is therefore serialised whole and handed to exactly one `writeSync`. What can still go
 * wrong is a writer dying mid-write (a fatal signal between copied pages, or power loss): that
 * leaves a fragment without a newline, which the reader reports as torn and skips. Records are
 * capped at MAX_RECORD_BYTES (big lists are trimmed) so a write stays small and fast.
 */
import { closeSync, constants, fdatasyncSync, mkdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkPrivatePath, openPrivateFile } from '../state/trust.js';
import { readProcEntry } from '../table/linux-proc.js';
import { LEDGER_VERSION, type LedgerActor, type LedgerEntry, type LedgerRecord } from './records.js';

/** Keep every record well inside one write; larger kill reports are trimmed to fit. */
export const MAX_RECORD_BYTES = 16 * 1024;
const LEDGER_FILE_MODE = 0o600;
const LEDGER_DIR_MODE = 0o700;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;
const TRIMMABLE_LISTS = ['pids', 'killed', 'survivors', 'runsEnded', 'args'] as const;
const TRIMMED_LIST_LENGTH = 32;

let selfActor: LedgerActor | undefined;

/** The default author of records written by this process. */
export function defaultActor(role: LedgerActor['role'] = 'cli'): LedgerActor {
  if (selfActor === undefined || selfActor.role !== role) {
    const startTime = process.platform === 'linux' ? readProcEntry(process.pid)?.startTime : undefined;
    selfActor = startTime === undefined ? { role, pid: process.pid } : { role, pid: process.pid, startTime };
  }
  return selfActor;
}

/** Serialises with `v` and `kind` first: the reader's resync marker depends on that prefix. */
export function serializeRecord(entry: LedgerEntry, actor: LedgerActor): string {
  const { kind, by, at, ...rest } = entry as LedgerEntry & Record<string, unknown>;
  const record = { v: LEDGER_VERSION, kind, at: at ?? new Date().toISOString(), by: by ?? actor, ...rest };
  let line = JSON.stringify(record);
  if (Buffer.byteLength(line) > MAX_RECORD_BYTES) line = JSON.stringify(trimRecord(record));
  if (Buffer.byteLength(line) > MAX_RECORD_BYTES) {
    throw new Error(`ledger record of kind ${String(kind)} exceeds ${MAX_RECORD_BYTES} bytes even trimmed`);
  }
  return `${line}\n`;
}

function trimRecord(record: Record<string, unknown>): Record<string, unknown> {
  const trimmed: Record<string, unknown> = { ...record, truncated: true };
  for (const key of TRIMMABLE_LISTS) {
    const list = trimmed[key];
    if (Array.isArray(list) && list.length > TRIMMED_LIST_LENGTH) {
      trimmed[key] = list.slice(0, TRIMMED_LIST_LENGTH);
      trimmed[`${key}Count`] = list.length;
    }
  }
  if (typeof trimmed.error === 'string') trimmed.error = trimmed.error.slice(0, 1024);
  if (typeof trimmed.command === 'string') trimmed.command = trimmed.command.slice(0, 1024);
  return trimmed;
}

/** Appends one record and flushes it to disk before returning. Returns the record as written. */
export function appendLedgerRecord(ledgerFile: string, entry: LedgerEntry, actor?: LedgerActor): LedgerRecord {
  const line = serializeRecord(entry, actor ?? defaultActor());
  // Nothing is written into a directory or file another user could have planted or can read.
  if (!checkPrivatePath(dirname(ledgerFile), 'directory')) {
    mkdirSync(dirname(ledgerFile), { recursive: true, mode: LEDGER_DIR_MODE });
    checkPrivatePath(dirname(ledgerFile), 'directory');
  }
  const fd = openPrivateFile(ledgerFile, APPEND_FLAGS, LEDGER_FILE_MODE);
  if (fd === null) throw new Error(`ledger ${ledgerFile} could not be created (its directory vanished)`);
  try {
    const buffer = Buffer.from(line);
    const written = writeSync(fd, buffer);
    // A short write to a regular file only happens on a full disk or a fatal signal; report it
    // rather than append the rest as a second write another writer could interleave with.
    if (written !== buffer.length) {
      throw new Error(`ledger write was short (${written}/${buffer.length} bytes): is the disk full?`);
    }
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return JSON.parse(line) as LedgerRecord;
}
