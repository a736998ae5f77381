/** The catalog: one definition per scenario, complete, tested, and shaped as the protocol expects. */
import { scenarioInfoSchema } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { findScenario, listScenarios, runScenario, SCENARIOS, UnknownScenarioError } from '../src/index.js';
import {
  AGENT_SCENARIOS,
  CONTAINER_SCENARIOS,
  ESCAPE_SCENARIOS,
  LIMIT_SCENARIOS,
  OUTPUT_SCENARIOS,
  PILE_SCENARIOS,
  PRIVILEGED_SCENARIOS,
  SIGNAL_SCENARIOS,
  TEAM_SCENARIOS,
  TOOL_SCENARIOS,
} from './support.js';

describe('scenario catalog', () => {
  it('has unique names and a full description for every scenario', () => {
    const names = SCENARIOS.map((scenario) => scenario.name);
    expect(new Set(names).size).toBe(names.length);
    for (const scenario of SCENARIOS) {
      for (const text of [scenario.title, scenario.explanation, scenario.naiveFailure, scenario.treewardenFix]) {
        expect(text.length, scenario.name).toBeGreaterThan(10);
      }
      expect(scenario.worker !== undefined || scenario.drive !== undefined, scenario.name).toBe(true);
      expect(scenario.bounds.maxProcesses, scenario.name).toBeGreaterThan(0);
      expect(scenario.bounds.maxMs, scenario.name).toBeLessThanOrEqual(60_000);
    }
  });

  it('every scenario is exercised by one of the scenario test files', () => {
    const tested = [
      ...ESCAPE_SCENARIOS,
      ...SIGNAL_SCENARIOS,
      ...OUTPUT_SCENARIOS,
      ...LIMIT_SCENARIOS,
      ...PRIVILEGED_SCENARIOS,
      ...AGENT_SCENARIOS,
      ...PILE_SCENARIOS,
      ...TEAM_SCENARIOS,
      ...CONTAINER_SCENARIOS,
      ...TOOL_SCENARIOS,
    ].sort();
    expect(tested).toEqual(SCENARIOS.map((scenario) => scenario.name).sort());
  });

  it('lists summaries the protocol accepts as ScenarioInfo', () => {
    const summaries = listScenarios();
    expect(summaries).toHaveLength(SCENARIOS.length);
    for (const summary of summaries) {
      expect(() => scenarioInfoSchema.parse(summary)).not.toThrow();
      expect(summary.available || (summary.unavailableReason ?? '').length > 0).toBe(true);
    }
  });

  it('refuses an unknown name with the list of known ones', async () => {
    expect(() => findScenario('no-such-scenario')).toThrow(UnknownScenarioError);
    expect(() => findScenario('no-such-scenario')).toThrow(/setsid-escape/);
    await expect(runScenario('no-such-scenario')).rejects.toThrow(/choose one of/);
  });
});
