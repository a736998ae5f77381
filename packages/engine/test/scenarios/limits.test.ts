/**
 * Runaway-limit scenarios: each expects its limit's classification and nothing alive afterwards;
 * in naive mode (a timeout-only tool) the setsid offender survives until the engine cleans up.
 */
import { describe, it } from 'vitest';
import {
  expectNaiveLeftSurvivorsThenCleaned,
  expectScenarioPassed,
  LIMIT_SCENARIOS,
  testTimeoutFor,
  useScenarioRunner,
} from './support.js';

describe('limit scenarios under Treewarden', () => {
  const run = useScenarioRunner();
  for (const name of LIMIT_SCENARIOS) {
    it(`${name}: its limit's classification, nothing carrying the cookie survives`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      expectScenarioPassed(await run(name));
    });
  }

  it('memory-balloon naively: the timeout-only kill leaves the balloon alive, then the engine ends it', {
    timeout: testTimeoutFor('memory-balloon'),
  }, async () => {
    expectNaiveLeftSurvivorsThenCleaned(await run('memory-balloon', { naive: true }));
  });
});
