/**
 * The ledger reader. A crash can leave one torn record (a fragment without a newline); when
 * another writer appends afterwards, its record is glued onto the fragment. The reader reports
 * the fragment and recovers the glued record by its prefix. Nothing here is ever fatal: a
 * missing ledger is an empty one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isLedgerRecord, type LedgerRecord, RECORD_PREFIX } from './records.js';

export interface TornLine {
  /** 1-based line number in the file. */
  readonly line: number;
  /** The unparseable bytes (capped for display). */
  readonly text: string;
  /** True when it is the file's last line and has no newline: a writer died mid-write. */
  readonly atEnd: boolean;
}

export interface LedgerRead {
  readonly records: readonly LedgerRecord[];
  readonly torn: readonly TornLine[];
}

const TORN_TEXT_CAP = 200;

export function parseLedger(text: string): LedgerRead {
  const records: LedgerRecord[] = [];
  const torn: TornLine[] = [];
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  lines.forEach((line, index) => {
    if (line === '') return;
    const atEnd = index === lines.length - 1 && !endsWithNewline;
    // Resync: a whole record may follow a torn fragment on the same line.
    const start = line.lastIndexOf(RECORD_PREFIX);
    const tail = start > 0 ? parseRecord(line.slice(start)) : null;
    const head = tail === null ? line : line.slice(0, start);
    const headRecord = parseRecord(head);
    // A fragment cut exactly before its newline is still a whole record: keep it.
    if (headRecord !== null) records.push(headRecord);
    else torn.push({ line: index + 1, text: head.slice(0, TORN_TEXT_CAP), atEnd });
    if (tail !== null) records.push(tail);
  });
  return { records, torn };
}

function parseRecord(line: string): LedgerRecord | null {
  try {
    const value: unknown = JSON.parse(line);
    return isLedgerRecord(value) ? value : null;
  } catch {
    return null;
  }
}

export function readLedger(ledgerFile: string): LedgerRead {
  if (!existsSync(ledgerFile)) return { records: [], torn: [] };
  return parseLedger(readFileSync(ledgerFile, 'utf8'));
}
