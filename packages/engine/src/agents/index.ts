export * from './alerts/index.js';
export { browserProfileOf, foldBrowserTrees, type MemberWithParent } from './browser-tree.js';
export { type CleanedLeak, type CleanLeaksOptions, cleanAgentLeaks, type ProcessCleanReport } from './clean-leaks.js';
export {
  createMarkerReader,
  MAX_CACHED_ENVIRONS,
  type MarkerReader,
  type MarkerVars,
  parseMarkerVars,
} from './environ.js';
export { type AgentLeak, findAgentLeaks, type LeakedProcess, type LeakInput } from './find-leaks.js';
export { createFocusedReader, type FocusedReader, MAX_FOCUSED_PROCESSES, readFocusedTable } from './focused-table.js';
export { readFullTable, sessionRelatedPids } from './full-table.js';
export * from './hooks/index.js';
export { END_CLOCK_SLACK_MS, startedWithinSession } from './leak-judge.js';
export { type MarkerHit, markerHits, matchesShape, roleOf, rootAgentOf } from './match.js';
export {
  type AgentObservation,
  findSubreapers,
  markerReaderFor,
  type ObserveContext,
  observeAgentsOnce,
  observeTable,
} from './observe.js';
export {
  collectMarkers,
  type LiveSession,
  type RecogniseInput,
  recogniseSessions,
  type SessionMember,
} from './recognise.js';
export { rememberObserved } from './remember.js';
export { anyRootExited, ROOT_CHECK_INTERVAL_MS, waitForTickOrRootExit } from './root-watch.js';
export {
  COMMON_ARGVS,
  type LiveVars,
  MAX_MATCHED_SHARE,
  MIN_LIVE_PROCESSES,
  markerNamesOf,
  ruleBreadthProblems,
  UNIVERSAL_ENV_KEYS,
} from './rule-breadth.js';
export { type MemberRole, memberRoles, type RulesFile, rulesFileSchema } from './rule-schema.js';
export {
  AGENT_RULES_DIR,
  type AgentRule,
  type AgentRules,
  builtinRulesFile,
  compileRules,
  type LoadedRules,
  type LoadRulesOptions,
  loadAgentRules,
  parseRulesText,
  type RulesProblem,
} from './rules.js';
export { leakGroupRow, type SessionRowOptions, sessionRows } from './session-rows.js';
export {
  AGENT_SESSIONS_DIR,
  ENDED_SESSION_RETENTION_MS,
  MAX_MEMBERS_PER_SESSION,
  MAX_STORED_SESSIONS,
  readSession,
  readSessions,
  sessionsDir,
  writeSession,
} from './session-store.js';
export {
  AGENT_SESSION_ID_PATTERN,
  type HookCleanup,
  type HookInfo,
  type StoredMember,
  type StoredSession,
  storedSessionSchema,
} from './store-schema.js';
export {
  type AgentEvent,
  type AgentWatcher,
  createAgentWatcher,
  FULL_SCAN_INTERVAL_MS,
  WATCH_TICK_MS,
} from './watcher.js';
