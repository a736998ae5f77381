/**
 * What running a scenario produced, and whether it matched its expectation. The CLI prints it
 * (`--json` verbatim), the app shows it, the tests assert on it.
 */
import type { Classification } from '@treewarden/engine';
import type { CensusEntry } from './census.js';
import type { SweepResult } from './cleanup.js';
import type {
  ScenarioCheck,
  ScenarioDefinition,
  ScenarioExpectation,
  ScenarioMode,
  ScenarioOutcomeFacts,
  SeenProcess,
} from './types.js';

export interface ScenarioStep {
  /** Milliseconds since the scenario started. */
  readonly atMs: number;
  readonly text: string;
}

export interface SurvivorInfo {
  readonly pid: number;
  readonly startTime: string;
  readonly command: string;
  readonly cwd: string | null;
  readonly why: CensusEntry['why'];
}

export interface CleanupReport {
  /** Live processes the engine's cleanup found (naive mode: what the naive approach left). */
  readonly found: number;
  readonly kills: number;
  readonly survivors: readonly SurvivorInfo[];
  readonly durationMs: number;
}

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly mode: ScenarioMode;
  readonly runId: string;
  readonly dir: string;
  /** False when the scenario cannot run here; `skippedReason` says why. Nothing was started. */
  readonly available: boolean;
  readonly skippedReason: string | null;
  readonly expected: ScenarioExpectation;
  readonly actual: { readonly classification: Classification | null; readonly nothingSurvives: boolean };
  readonly outcome: ScenarioOutcomeFacts | null;
  /** Live processes right after the run ended (naive mode: after the naive kill), before cleanup. */
  readonly survivors: readonly SurvivorInfo[];
  readonly cleanup: CleanupReport | null;
  readonly checks: readonly ScenarioCheck[];
  readonly steps: readonly ScenarioStep[];
  readonly seen: readonly SeenProcess[];
  readonly peakProcesses: number;
  /** Set when the watchdog ended the scenario for passing its process or time bound. */
  readonly boundsExceeded: string | null;
  readonly interrupted: boolean;
  /**
   * Treewarden mode: classification and survivors as expected, every check ok, bounds held.
   * Naive mode: the engine's cleanup left nothing alive and bounds held (the naive part is
   * expected to fail; that is the demo).
   */
  readonly passed: boolean;
  readonly durationMs: number;
}

export function toSurvivorInfo(entry: CensusEntry): SurvivorInfo {
  return {
    pid: entry.pid,
    startTime: entry.startTime,
    command: entry.commandLine || entry.command,
    cwd: entry.cwd,
    why: entry.why,
  };
}

export function toCleanupReport(sweep: SweepResult): CleanupReport {
  return {
    found: sweep.found.length,
    kills: sweep.kills.length,
    survivors: sweep.survivors.map(toSurvivorInfo),
    durationMs: sweep.durationMs,
  };
}

export interface JudgeInput {
  readonly mode: ScenarioMode;
  readonly expected: ScenarioExpectation;
  readonly actual: ScenarioResult['actual'];
  readonly checks: readonly ScenarioCheck[];
  readonly cleanup: CleanupReport | null;
  readonly boundsExceeded: string | null;
  readonly interrupted: boolean;
}

export function judge(input: JudgeInput): boolean {
  if (input.boundsExceeded !== null || input.interrupted) return false;
  const cleanedUp = input.cleanup !== null && input.cleanup.survivors.length === 0;
  if (input.mode === 'naive') return cleanedUp;
  return (
    cleanedUp &&
    input.actual.classification === input.expected.classification &&
    input.actual.nothingSurvives === input.expected.nothingSurvives &&
    input.checks.every((check) => check.ok)
  );
}

/** The result of a scenario that cannot run here: visible, never silently passed. */
export function skippedResult(definition: ScenarioDefinition, mode: ScenarioMode, reason: string): ScenarioResult {
  return {
    name: definition.name,
    title: definition.title,
    mode,
    runId: '',
    dir: '',
    available: false,
    skippedReason: reason,
    expected: definition.expected,
    actual: { classification: null, nothingSurvives: true },
    outcome: null,
    survivors: [],
    cleanup: null,
    checks: [],
    steps: [{ atMs: 0, text: `skipped: ${reason}` }],
    seen: [],
    peakProcesses: 0,
    boundsExceeded: null,
    interrupted: false,
    passed: false,
    durationMs: 0,
  };
}
