export {
  createDarwinReader,
  type DarwinReaderOptions,
  PS_ARGS,
  parseCpuTime,
  parseLstart,
  parsePsOutput,
  readDarwinTable,
} from './darwin-ps.js';
export { createFdListings, type FdLink, type FdListings, readFdLinks } from './fd-links.js';
export { type FdUsage, fdUsageOf, maxUserWatches, openFilesLimit, readFdUsage } from './fd-usage.js';
export {
  type BoundedInspectorOptions,
  INSPECTOR_TIMEOUT_MS,
  type InspectorProcess,
  MAX_INSPECTOR_OUTPUT_BYTES,
  runBoundedInspector,
  type SpawnInspector,
  spawnCommand,
} from './inspector.js';
export { readProcEntry, readProcTable } from './linux-proc.js';
export { createLinuxReader, type LinuxReader, type LinuxReaderOptions, MAX_CACHED_IDENTITIES } from './linux-reader.js';
export { clockTicks, listPids, parseProcStat, readProcText, readStatFields, type StatFields } from './linux-stat.js';
export { createTableReader } from './reader.js';
export { filterTrees, indexChildren } from './trees.js';
export * from './types.js';
export {
  createWindowsReader,
  parseWin32Processes,
  parseWmicCsv,
  readWindowsTable,
  type WindowsReaderOptions,
} from './windows.js';
export { splitWindowsCommandLine, wmiDateToFiletime } from './windows-parse.js';
