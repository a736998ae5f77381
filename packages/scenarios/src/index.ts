export { findScenario, SCENARIOS, type ScenarioSummary, summarizeScenario, UnknownScenarioError } from './catalog.js';
export { type CensusEntry, scanScenario } from './census.js';
export { type SweepResult, sweepScenario } from './cleanup.js';
export {
  INTERRUPT_WAIT_MS,
  runScenario,
  type ScenarioExecution,
  type ScenarioRunOptions,
  startScenario,
  unavailableReason,
} from './execute.js';
export { formatScenarioIntro, formatScenarioList, formatScenarioResult, formatStep } from './format.js';
export { listScenarios } from './list.js';
export { isPaceable, pacedDefinition, type ScenarioPace, SLOW_PACE_FACTOR } from './pace.js';
export type { CleanupReport, ScenarioResult, ScenarioStep, SurvivorInfo } from './result.js';
export type * from './types.js';
