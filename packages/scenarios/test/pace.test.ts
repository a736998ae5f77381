/** The slow demo pace: longer timeouts (and bounds) for scenarios that end by timeout, nothing else. */
import { describe, expect, it } from 'vitest';
import { findScenario } from '../src/catalog.js';
import { isPaceable, pacedDefinition, SLOW_PACE_FACTOR } from '../src/pace.js';
import type { ScenarioContext } from '../src/types.js';

const context: ScenarioContext = {
  mode: 'treewarden',
  runId: 'run-pace-test',
  dir: '/nonexistent/pace-test',
  reportFile: '/nonexistent/pace-test/report.jsonl',
  startedAtMs: 0,
  env: {},
  node: process.execPath,
  fixture: (name) => `/nonexistent/fixtures/${name}`,
};

describe('scenario pace', () => {
  it('stretches the timeout and the time bound of a scenario that ends by timeout', () => {
    const normal = findScenario('ignore-sigterm');
    const slow = pacedDefinition(normal, 'slow');
    expect(isPaceable(normal)).toBe(true);
    const plan = normal.worker?.(context);
    const slowPlan = slow.worker?.(context);
    expect(slowPlan?.timeoutSeconds).toBe((plan?.timeoutSeconds ?? 0) * SLOW_PACE_FACTOR);
    expect(slowPlan?.args).toEqual(plan?.args);
    expect(slow.bounds.maxMs).toBe(normal.bounds.maxMs * SLOW_PACE_FACTOR);
    expect(slow.bounds.maxProcesses).toBe(normal.bounds.maxProcesses);
  });

  it('leaves scenarios that race their timeout, or are driven, as they are', () => {
    for (const name of ['exit-at-timeout', 'harness-sigkill', 'output-flood']) {
      const definition = findScenario(name);
      expect(isPaceable(definition)).toBe(false);
      expect(pacedDefinition(definition, 'slow')).toBe(definition);
    }
    const normal = findScenario('ignore-sigterm');
    expect(pacedDefinition(normal, 'normal')).toBe(normal);
  });
});
