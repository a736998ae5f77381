/** Hard-to-end workers: ignored and trapped signals, zombies, fork loops, a photo finish. */
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../../test-support/index.js';
import { startScenario } from '../src/index.js';
import {
  expectScenarioPassed,
  findLeftovers,
  narrate,
  SIGNAL_SCENARIOS,
  testTimeoutFor,
  useScenarioRunner,
} from './support.js';

describe('signal scenarios under Treewarden', () => {
  const run = useScenarioRunner();
  for (const name of SIGNAL_SCENARIOS) {
    it(`${name}: expected outcome, nothing carrying the cookie survives`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      expectScenarioPassed(await run(name));
    });
  }
});

describe('interrupting a scenario (Ctrl-C, window closed)', () => {
  it('ends everything the scenario started and reports it interrupted', {
    timeout: testTimeoutFor('trap-term-int'),
  }, async () => {
    const execution = startScenario('trap-term-int');
    // Wait until the trapping child is up, so there is a real tree to end.
    await pollUntil(() => findLeftovers(execution.runId, execution.dir).length >= 2, {
      deadlineMs: 20_000,
      description: 'the trap-term-int tree to come up',
    });
    const result = await execution.interrupt('test interrupt');
    const story = narrate(result);
    expect(result.interrupted, story).toBe(true);
    expect(result.passed, story).toBe(false);
    expect(result.cleanup?.survivors, story).toEqual([]);
    expect(findLeftovers(execution.runId, execution.dir), story).toEqual([]);
  });
});
