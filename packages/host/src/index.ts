export { createEnginePort, type EnginePortOptions } from './engine/binding.js';
export * from './engine/port.js';
export {
  DEFAULT_EXPORT_INTERVAL_SECONDS,
  type Exporter,
  type ExportOptions,
  MAX_EXPORT_INTERVAL_SECONDS,
  MIN_EXPORT_INTERVAL_SECONDS,
  startExporter,
} from './export/export-main.js';
export {
  DEFAULT_LISTEN,
  ExportInputError,
  parseListen,
  parseOtlpUrl,
  remoteToken,
} from './export/listen.js';
export { PortInUseError } from './export/metrics-server.js';
export * from './host.js';
export { createWorkerTableReader, WORKER_READ_TIMEOUT_MS, type WorkerTableReader } from './poll/worker-reader.js';
export { BROWSER_ENV, openInBrowser } from './serve/open-browser.js';
export { contentSecurityPolicy, LOOPBACK_ADDRESS } from './serve/security.js';
export { type ServeMainOptions, serveUntilSignal } from './serve/serve-main.js';
export { type ServeHandle, type ServeOptions, startServe } from './serve/server.js';
export { RENDERER_DIR_ENV, resolveRendererDir } from './serve/static-files.js';
export { createCpuTracker, MAX_COMMAND_LINE_CHARS, toProcessNode } from './snapshot/process-node.js';
export { applySystemDiff, diffSystem, nodeKey, type SystemDiff } from './snapshot/system-diff.js';
export { createSystemRows, type SystemRows } from './snapshot/system-rows.js';
