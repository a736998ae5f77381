export {
  ALERT_CONFIG_FILE,
  type AlertConfig,
  type AlertConfigLoad,
  ANY_AGENT,
  alertConfigPath,
  alertConfigSchema,
  autoTrims,
  type Budget,
  budgetFor,
  DEFAULT_ALERT_CONFIG,
  DEFAULT_BUDGETS,
  loadAlertConfig,
  parseAlertConfig,
} from './config.js';
export type { AlertDraft } from './draft.js';
export { type CachedFdReader, createCachedFdReader, directFdReader, FD_READ_SPACING_MS } from './fd-cache.js';
export { type FdReader, fdHogs } from './fd-hog.js';
export {
  type AlertInput,
  type AlertTick,
  type AlertTracker,
  type AlertTrackerOptions,
  alertId,
  alertsBySession,
  createAlertTracker,
  type JudgedAlert,
  judgeSessionAlerts,
  type TrackedAlert,
  toSessionAlert,
} from './judge.js';
export {
  createSampleHistory,
  MAX_SAMPLES_PER_PROCESS,
  SAMPLE_SPACING_MS,
  type SampleHistory,
  type UsageSample,
} from './samples.js';
export {
  DEFAULT_TRIM_KINDS,
  notAlerted,
  selectTrim,
  TRIM_LEDGER_REASON,
  type TrimmedAlert,
  type TrimRequest,
  type TrimSelection,
  trimAlerts,
} from './trim.js';
export { cpuSpin, idleFor, lifetimeSpin, memoryGrowth } from './usage-rules.js';
