/** Escapes: descendants that outlive the process a naive tool knows about. Real processes. */
import { describe, it } from 'vitest';
import {
  ESCAPE_SCENARIOS,
  expectNaiveLeftSurvivorsThenCleaned,
  expectScenarioPassed,
  testTimeoutFor,
  useScenarioRunner,
} from './support.js';

describe('escape scenarios under Treewarden', () => {
  const run = useScenarioRunner();
  for (const name of ESCAPE_SCENARIOS) {
    it(`${name}: expected outcome, nothing carrying the cookie survives`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      expectScenarioPassed(await run(name));
    });
  }
});

describe('escape scenarios, naive approach', () => {
  const run = useScenarioRunner();
  for (const name of ['setsid-escape', 'grandchild-heartbeat'] as const) {
    it(`${name}: the naive kill leaves survivors, the engine then ends them`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      expectNaiveLeftSurvivorsThenCleaned(await run(name, { naive: true }));
    });
  }
});
