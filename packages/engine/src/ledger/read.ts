/**
 * The ledger reader. A crash can leave one torn record (a fragment without a newline); when
 * another writer appends afterwards, its record is glued onto the fragment. The reader reports
 * the fragment and recovers the glued record by its prefix. A line that parses but does not match
 * its kind's schema is reported as invalid and never believed. Nothing in the content is ever
 * fatal: a missing ledger is an empty one. An untrusted ledger file (a symlink, someone else's,
 * readable by others) is refused with a StateDirError before it is read.
 */
import { closeSync, constants, readFileSync } from 'node:fs';
import { openPrivateFile } from '../state/trust.js';
import { type LedgerRecord, RECORD_PREFIX } from './records.js';
import { checkLedgerRecord } from './schema.js';

export interface TornLine {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The unparseable bytes (capped for display). */
  readonly text: string;
  /** True when it is the file's last line and has no newline: a writer died mid-write. */
  readonly atEnd: boolean;
}

/** A whole JSON line of a known kind that does not match its schema: skipped and reported. */
export interface InvalidLine {
  readonly line: number;
  readonly problem: string;
}

export interface LedgerRead {
  readonly records: readonly LedgerRecord[];
  readonly torn: readonly TornLine[];
  readonly invalid: readonly InvalidLine[];
}

const TORN_TEXT_CAP = 200;

type LineResult =
  | { readonly type: 'record'; readonly record: LedgerRecord }
  | { readonly type: 'skip' }
  | { readonly type: 'invalid'; readonly problem: string }
  | { readonly type: 'unparseable' };

function parseLine(text: string): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'unparseable' };
  }
  const check = checkLedgerRecord(value);
  if (check.ok) return { type: 'record', record: check.record };
  return check.unknownKind ? { type: 'skip' } : { type: 'invalid', problem: check.problem };
}

export function parseLedger(text: string): LedgerRead {
  const records: LedgerRecord[] = [];
  const torn: TornLine[] = [];
  const invalid: InvalidLine[] = [];
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const keep = (result: LineResult, line: number) => {
    if (result.type === 'record') records.push(result.record);
    else if (result.type === 'invalid') invalid.push({ line, problem: result.problem });
  };
  lines.forEach((line, index) => {
    if (line === '') return;
    const atEnd = index === lines.length - 1 && !endsWithNewline;
    // Resync: a whole record may follow a torn fragment on the same line.
    const start = line.lastIndexOf(RECORD_PREFIX);
    const tail = start > 0 ? parseLine(line.slice(start)) : null;
    const resynced = tail !== null && tail.type !== 'unparseable';
    const head = resynced ? line.slice(0, start) : line;
    const headResult = parseLine(head);
    // A fragment cut exactly before its newline is still a whole record: keep it.
    if (headResult.type === 'unparseable') torn.push({ line: index + 1, text: head.slice(0, TORN_TEXT_CAP), atEnd });
    else keep(headResult, index + 1);
    if (resynced) keep(tail, index + 1);
  });
  return { records, torn, invalid };
}

export function readLedger(ledgerFile: string): LedgerRead {
  const fd = openPrivateFile(ledgerFile, constants.O_RDONLY);
  if (fd === null) return { records: [], torn: [], invalid: [] };
  try {
    return parseLedger(readFileSync(fd, 'utf8'));
  } finally {
    closeSync(fd);
  }
}
