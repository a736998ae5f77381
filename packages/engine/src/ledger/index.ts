export { appendLedgerRecord, defaultActor, MAX_RECORD_BYTES, serializeRecord } from './append.js';
export { killerOfReason, type RunHistoryEntry, summarizeRuns, toldEnd } from './history.js';
export { killRecordOf, signalsSent } from './kill-record.js';
export { type InvalidLine, type LedgerRead, parseLedger, readLedger, type TornLine } from './read.js';
export { type RecordRunOptions, recordRun, recordRunEnd, recordRunStart } from './record-run.js';
export * from './records.js';
export { checkLedgerRecord, identitySchema, type RecordCheck } from './schema.js';
