export { readProcEntry, readProcTable } from './linux-proc.js';
export * from './types.js';
