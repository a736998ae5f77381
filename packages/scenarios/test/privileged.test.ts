/**
 * Scenarios that need more than a plain process tree: a harness SIGKILLed with its lease's
 * guardian left to clean up (engine dist), and pid reuse in a pid namespace (root). Where the
 * machine cannot run one, the test is skipped with the scenario's reason in its name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScenario, unavailableReason } from '../src/index.js';
import {
  expectScenarioPassed,
  findLeftovers,
  narrate,
  PRIVILEGED_SCENARIOS,
  testTimeoutFor,
  useScenarioRunner,
} from './support.js';

const HOME_ENV = 'TREEWARDEN_HOME';

function skipNote(name: string): string {
  const reason = unavailableReason(findScenario(name));
  return reason === null ? '' : ` [SKIPPED: ${reason}]`;
}

describe('privileged scenarios', () => {
  const run = useScenarioRunner();
  let home = '';
  const previousHome = process.env[HOME_ENV];
  // Leases and the ledger go to a private state dir, never the user's.
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'tw-scenario-home-'));
    process.env[HOME_ENV] = home;
  });
  afterAll(() => {
    if (previousHome === undefined) delete process.env[HOME_ENV];
    else process.env[HOME_ENV] = previousHome;
    rmSync(home, { recursive: true, force: true });
  });

  for (const name of PRIVILEGED_SCENARIOS) {
    const note = skipNote(name);
    it.skipIf(note !== '')(
      `${name}: expected outcome, nothing survives${note}`,
      { timeout: testTimeoutFor(name) },
      async () => {
        expectScenarioPassed(await run(name));
      },
    );
  }

  const pidNote = skipNote('pid-reuse');
  it.skipIf(pidNote !== '')(
    `pid-reuse, naive: the kill hits the bystander${pidNote}`,
    { timeout: testTimeoutFor('pid-reuse') },
    async () => {
      const result = await run('pid-reuse', { naive: true });
      const story = narrate(result);
      expect(result.outcome?.stderrTail, story).toMatch(/WRONG PROCESS KILLED/);
      expect(
        result.checks.every((check) => check.ok),
        story,
      ).toBe(true);
      expect(findLeftovers(result.runId, result.dir), story).toEqual([]);
    },
  );

  const harnessNote = skipNote('harness-sigkill');
  it.skipIf(harnessNote !== '')(
    `harness-sigkill, naive: the workers outlive the harness until the engine ends them${harnessNote}`,
    { timeout: testTimeoutFor('harness-sigkill') },
    async () => {
      const result = await run('harness-sigkill', { naive: true });
      const story = narrate(result);
      expect(result.survivors.length, story).toBe(2);
      expect(result.cleanup?.survivors, story).toEqual([]);
      expect(findLeftovers(result.runId, result.dir), story).toEqual([]);
    },
  );
});
