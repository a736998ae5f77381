export * from './agents/index.js';
export * from './classify/index.js';
export * from './containers/index.js';
export { killTree } from './kill/kill-tree.js';
export {
  FREEZE_ROUNDS,
  GRACE_POLL_MS,
  killOwnedTree,
  type OwnerKill,
  VERIFY_POLL_MS,
  VERIFY_TIMEOUT_MS,
} from './kill/owner-kill.js';
export { type KillPreview, previewKill } from './kill/preview.js';
export * from './kill/types.js';
export * from './lease/index.js';
export * from './ledger/index.js';
export * from './membership/index.js';
export * from './orphans/index.js';
export * from './ownership/index.js';
export * from './ports/index.js';
export * from './run/index.js';
export {
  byteExactShim,
  decodeArgv,
  type EncodedArgv,
  encodeArgv,
  readArgvTailBytes,
} from './runtime/argv-bytes.js';
export { capabilityWarnings, type NativeCapabilities, readNativeCapabilities } from './runtime/capabilities.js';
export {
  type BaseEnvironment,
  copyEnvironment,
  EnvironBlock,
  environmentWith,
  parseEnvironBlock,
  readStartEnvironBlock,
  readStartEnvironment,
} from './runtime/environment.js';
export {
  endNativeThreads,
  exitedWithin,
  liveNativeThreads,
  NATIVE_THREAD_END_MS,
  trackNativeThread,
} from './runtime/native-threads.js';
export {
  currentRuntime,
  type NodeCommand,
  type NodeRuntime,
  nodeCommand,
  RUN_AS_NODE_ENV,
} from './runtime/node-command.js';
export { DeadlineError, type PollOptions, pollUntil, withDeadline } from './runtime/wait.js';
export * from './signal/index.js';
export * from './state/index.js';
export * from './table/index.js';
