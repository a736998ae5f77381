export { loadPidfd, type PidfdApi } from '../runtime/pidfd.js';
export {
  ancestorPids,
  assertSameUser,
  assertSignallableGroup,
  assertSignallablePid,
  ownProcessGroup,
  type RefusalCode,
  SignalRefusedError,
} from './guards.js';
export { parseStatLite, readStatLite, type StatLite } from './proc-stat.js';
export { createSignalOps, killWithResult, type SignalOpsOptions, signalNumber } from './signal-ops.js';
export { readLiveStartTime } from './start-time.js';
export type { SignalName, SignalOps, SignalResult } from './types.js';
