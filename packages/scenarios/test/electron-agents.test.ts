/**
 * An agent-leak scenario inside the desktop app: a process that plays the Electron main (started
 * by the stand-in Electron binary, test-support/fake-electron.ts, so its `process.execPath` is the
 * app binary and every script it starts goes through that binary) runs the agent scenarios. The
 * fake Claude roots must still look like `node …/@anthropic-ai/claude-code/cli.js`, or the
 * agent rules never recognise the sessions and the leak is never found: the engine must find and
 * end exactly the doomed session's leak and leave the live session and the bystander alone.
 * Before the fix the roots ran as `node --import <stand-in preload> …/cli.js` and every scenario
 * failed with "the engine did not recognise both fake Claude sessions".
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RUN_AS_NODE_ENV } from '@treewarden/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeElectron } from '../../../test-support/fake-electron.js';
import { makeTempDir, removeTempDir, useProcessTracker } from '../../../test-support/index.js';
import { AGENT_SCENARIOS, collect, testTimeoutFor } from './support.js';

const MAIN = fileURLToPath(new URL('as-electron-main.mjs', import.meta.url));
/** All three in one main process: one start of the stand-in, three sets of fake sessions. */
const TEST_TIMEOUT_MS = AGENT_SCENARIOS.reduce((sum, name) => sum + testTimeoutFor(name), 0);

interface MainReport {
  readonly runtime: { readonly execPath: string; readonly electron: string | null };
  readonly scenarios: readonly {
    readonly name: string;
    readonly passed: boolean;
    readonly failedChecks: readonly string[];
    readonly checks: Readonly<Record<string, boolean>>;
    readonly cast: readonly { readonly role: string; readonly pid: number }[];
  }[];
}

describe('an agent scenario under a stand-in Electron binary', () => {
  const tracker = useProcessTracker();
  let dir = '';
  afterEach(() => removeTempDir(dir));

  it(
    'the fake Claude roots are recognised, each leak is found and ended, the live session is untouched',
    async () => {
      dir = makeTempDir('tw-electron-agents-');
      const electron = createFakeElectron(dir);
      const child = spawn(electron.binary, [MAIN, JSON.stringify(AGENT_SCENARIOS.map((name) => [name, false]))], {
        env: { ...process.env, [RUN_AS_NODE_ENV]: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tracker.trackChild(child);
      // Each scenario's own time bound ends it; the lease part of the main is a few seconds.
      const run = await collect(child);
      expect(electron.refusals(), 'spawns that would have started a second app').toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as MainReport;
      expect(report.runtime.execPath).toBe(electron.binary);
      expect(report.scenarios.map((scenario) => scenario.name)).toEqual([...AGENT_SCENARIOS]);
      for (const scenario of report.scenarios) {
        const story = JSON.stringify(scenario);
        expect(scenario.checks['the engine ended exactly the leaked members'], story).toBe(true);
        expect(scenario.checks['the live session was left alone'], story).toBe(true);
        expect(scenario.checks['the unrelated marker-less process was left alone'], story).toBe(true);
        expect(scenario.passed, story).toBe(true);
        expect(scenario.cast.filter((member) => member.role === 'leaked').length, story).toBeGreaterThan(0);
        expect(
          scenario.cast.filter((member) => member.role === 'live-session-root'),
          story,
        ).toHaveLength(1);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
