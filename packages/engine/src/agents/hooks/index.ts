export { type HookContext, type HookResult, handleHookEvent } from './handle-hook.js';
export {
  HOOK_AGENTS,
  type HookAgent,
  type HookAgentName,
  hookAgentNames,
  hookAgentOf,
  hookRecordId,
} from './hook-agents.js';
export { findHookAgent, type HookAncestry } from './hook-ancestry.js';
export { type HookEvent, hookEventSchema, MAX_HOOK_INPUT_BYTES, parseHookEvent } from './hook-event.js';
export { closeHookRecord, openHookRecord } from './hook-record.js';
export { findSessionLeftovers, type LeftoverInput } from './leftovers.js';
export {
  REAPER_AGENT_EXIT_TIMEOUT_MS,
  REAPER_GRACE_MS,
  REAPER_LEDGER_REASON,
  type ReaperConfig,
  reaperConfigSchema,
  runReaper,
} from './run-reaper.js';
export { REAPER_ENTRY, spawnReaper } from './spawn-reaper.js';
export { waitForExit } from './wait-exit.js';
