/**
 * The scenario catalog: every definition, in the order a demo tells them, and the summaries the
 * CLI lists and the app's launcher shows (the protocol's ScenarioInfo fields, plus bounds).
 */

import { agentSubagentPileup, agentTerminalClosed, agentWrapperLeak } from './definitions/agents.js';
import { browserLeftByMcp } from './definitions/browsers.js';
import { containerLeftBySession } from './definitions/containers.js';
import { doubleForkDaemon, grandchildHeartbeat, nohupDisown, setsidEscape } from './definitions/escapes.js';
import { harnessSigkill } from './definitions/harness.js';
import { cpuSpin, forkBomb, memoryBalloon, silentHang } from './definitions/limits.js';
import { agentAuthFailure, agentCancelled, agentUsageLimit, invalidUtf8, outputFlood } from './definitions/output.js';
import { pidReuse } from './definitions/pid-reuse.js';
import { pileDuplicateMcp, pileRunawayJob, pileStaleSubagents } from './definitions/piles.js';
import { exitAtTimeout, forkLoop, ignoreSigterm, trapTermInt, zombieParent } from './definitions/signals.js';
import { agentTeamTmuxLeftover } from './definitions/teams.js';
import { watcherEatingFds } from './definitions/watchers.js';
import type { NaiveStrategy, ScenarioBounds, ScenarioDefinition, ScenarioExpectation } from './types.js';

export const SCENARIOS: readonly ScenarioDefinition[] = [
  grandchildHeartbeat,
  setsidEscape,
  doubleForkDaemon,
  nohupDisown,
  ignoreSigterm,
  trapTermInt,
  zombieParent,
  forkLoop,
  exitAtTimeout,
  harnessSigkill,
  pidReuse,
  outputFlood,
  invalidUtf8,
  agentUsageLimit,
  agentAuthFailure,
  agentCancelled,
  memoryBalloon,
  forkBomb,
  cpuSpin,
  silentHang,
  agentWrapperLeak,
  agentTerminalClosed,
  agentSubagentPileup,
  agentTeamTmuxLeftover,
  containerLeftBySession,
  browserLeftByMcp,
  watcherEatingFds,
  pileDuplicateMcp,
  pileStaleSubagents,
  pileRunawayJob,
];

/** Structurally the protocol's `ScenarioInfo` (packages/protocol/src/model.ts), plus bounds. */
export interface ScenarioSummary {
  readonly name: string;
  readonly title: string;
  readonly explanation: string;
  readonly naiveFailure: string;
  readonly treewardenFix: string;
  readonly expected: ScenarioExpectation;
  readonly available: boolean;
  readonly unavailableReason: string | null;
  readonly bounds: ScenarioBounds;
  readonly naiveStrategy: NaiveStrategy;
}

export class UnknownScenarioError extends Error {
  override readonly name = 'UnknownScenarioError';
}

export function findScenario(name: string): ScenarioDefinition {
  const definition = SCENARIOS.find((scenario) => scenario.name === name);
  if (definition === undefined) {
    throw new UnknownScenarioError(
      `unknown scenario "${name}": choose one of ${SCENARIOS.map((scenario) => scenario.name).join(', ')}`,
    );
  }
  return definition;
}

export function summarizeScenario(definition: ScenarioDefinition, reason: string | null): ScenarioSummary {
  return {
    name: definition.name,
    title: definition.title,
    explanation: definition.explanation,
    naiveFailure: definition.naiveFailure,
    treewardenFix: definition.treewardenFix,
    expected: definition.expected,
    available: reason === null,
    unavailableReason: reason,
    bounds: definition.bounds,
    naiveStrategy: definition.naive,
  };
}
