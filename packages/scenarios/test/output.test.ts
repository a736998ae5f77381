/** Output floods, invalid UTF-8 and fake agents whose stderr says why they stopped. */
import { describe, it } from 'vitest';
import { expectScenarioPassed, OUTPUT_SCENARIOS, testTimeoutFor, useScenarioRunner } from './support.js';

describe('output and agent scenarios under Treewarden', () => {
  const run = useScenarioRunner();
  for (const name of OUTPUT_SCENARIOS) {
    it(`${name}: expected outcome, nothing carrying the cookie survives`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      expectScenarioPassed(await run(name));
    });
  }
});
