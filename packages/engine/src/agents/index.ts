export * from './alerts/index.js';
export * from './hooks/index.js';
export {
  type AgentStopOptions,
  type AgentStopReport,
  findOnPath,
  stopIdsOf,
  stopWithAgent,
} from './leaks/agent-stop.js';
export {
  type CleanedContainer,
  type ContainerCleanOptions,
  type ContainerCleanResult,
  cleanContainerLeftovers,
} from './leaks/clean-containers.js';
export {
  type CleanedLeak,
  type CleanLeaksOptions,
  cleanAgentLeaks,
  type ProcessCleanReport,
} from './leaks/clean-leaks.js';
export { type AgentLeak, findAgentLeaks, type LeakedProcess, type LeakInput } from './leaks/find-leaks.js';
export { END_CLOCK_SLACK_MS, startedWithinSession } from './leaks/leak-judge.js';
export { containerLeftovers, readSessionContainers, type SessionContainer } from './leaks/session-containers.js';
export {
  type Attribution,
  attributeToSession,
  ContainerAttributor,
  readEngineClis,
} from './observe/container-attribution.js';
export {
  createFocusedReader,
  type FocusedReader,
  MAX_FOCUSED_PROCESSES,
  readFocusedTable,
} from './observe/focused-table.js';
export { isNewRootSeed, readFullTable, sessionRelatedPids } from './observe/full-table.js';
export {
  type AgentObservation,
  findSubreapers,
  markerReaderFor,
  type ObserveContext,
  observeAgentsOnce,
  observeTable,
  readListeningPidsLinux,
} from './observe/observe.js';
export {
  type AgentEvent,
  type AgentWatcher,
  createAgentWatcher,
  FULL_SCAN_FALLBACK_INTERVAL_MS,
  FULL_SCAN_INTERVAL_MS,
  STORE_READ_INTERVAL_MS,
  WATCH_TICK_MS,
} from './observe/watcher.js';
export {
  createMarkerReader,
  MAX_CACHED_ENVIRONS,
  type MarkerReader,
  type MarkerVars,
  parseMarkerVars,
} from './read/environ.js';
export {
  daemonAgentOf,
  familyShapeOf,
  type MarkerHit,
  markerHits,
  matchesShape,
  roleOf,
  rootAgentOf,
} from './rules/match.js';
export {
  COMMON_ARGVS,
  type LiveVars,
  MAX_MATCHED_SHARE,
  MIN_LIVE_PROCESSES,
  markerNamesOf,
  ruleBreadthProblems,
  UNIVERSAL_ENV_KEYS,
} from './rules/rule-breadth.js';
export { type MemberRole, memberRoles, type RulesFile, rulesFileSchema } from './rules/rule-schema.js';
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
} from './rules/rules.js';
export {
  attachContainers,
  leakGroupRow,
  type SessionRowOptions,
  sessionContainerRows,
  sessionRows,
} from './session-rows.js';
export { browserProfileOf, foldBrowserTrees, type MemberWithParent } from './sessions/browser-tree.js';
export {
  bestCliMatches,
  cliMatchScore,
  engineCliVerb,
  isInteractiveRun,
  weakContainerEvidence,
} from './sessions/container-match.js';
export { readStoredContainers, type StoredContainer, writeStoredContainer } from './sessions/container-store.js';
export { createExitWatch, type ExitWatch, exitWatchAvailable } from './sessions/exit-watch.js';
export {
  collectMarkers,
  type LiveSession,
  type RecogniseInput,
  recogniseSessions,
  type SessionMember,
} from './sessions/recognise.js';
export { rememberObserved } from './sessions/remember.js';
export {
  anyRootExited,
  createRootWatch,
  createTickWaiter,
  ROOT_CHECK_INTERVAL_MS,
  type RootWatch,
  type TickWaiter,
  waitForTickOrRootExit,
} from './sessions/root-watch.js';
export {
  AGENT_SESSIONS_DIR,
  ENDED_SESSION_RETENTION_MS,
  MAX_MEMBERS_PER_SESSION,
  MAX_STORED_SESSIONS,
  readSession,
  readSessions,
  sessionsDir,
  writeSession,
} from './sessions/session-store.js';
export {
  AGENT_SESSION_ID_PATTERN,
  type HookCleanup,
  type HookInfo,
  type StoredMember,
  type StoredSession,
  storedSessionSchema,
} from './sessions/store-schema.js';
