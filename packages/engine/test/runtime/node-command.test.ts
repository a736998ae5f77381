/**
 * Every process the engine starts to run JavaScript runs it as Node, also under Electron, where
 * process.execPath is the app binary. The pure helper is checked directly; then a stand-in
 * Electron (tests/helpers/fake-electron.ts) that refuses to run scripts without
 * ELECTRON_RUN_AS_NODE=1 plays the app binary for a process that plays the main process: it runs
 * scenarios (supervised, naive, shell fixtures, a harness with its own lease) and a guardian, and
 * not one spawn may reach the stand-in without the variable.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeCommand, RUN_AS_NODE_ENV } from '../../src/runtime/node-command.js';
import { createFakeElectron } from '../helpers/fake-electron.js';
import { makeTempDir, removeTempDir, useProcessTracker } from '../helpers/index.js';

const MAIN = fileURLToPath(new URL('as-electron-main.mjs', import.meta.url));
/** Four scenarios (one a harness with its own guardian) and a lease, on a loaded 2-core machine. */
const MAIN_WAIT_MS = 150_000;
const SLOW_TEST_MS = MAIN_WAIT_MS + 30_000;
/** Supervised, naive (the naive runner), a shell fixture that starts node, and a lease holder. */
const SCENARIOS: [string, boolean][] = [
  ['setsid-escape', false],
  ['grandchild-heartbeat', true],
  ['nohup-disown', false],
  ['harness-sigkill', false],
];

describe('nodeCommand', () => {
  it('runs scripts with this binary, adding ELECTRON_RUN_AS_NODE=1 only under Electron', () => {
    expect(nodeCommand({ execPath: '/usr/bin/node', electron: false })).toEqual({ command: '/usr/bin/node', env: {} });
    expect(nodeCommand({ execPath: '/opt/Treewarden/treewarden', electron: true })).toEqual({
      command: '/opt/Treewarden/treewarden',
      env: { [RUN_AS_NODE_ENV]: '1' },
    });
  });
});

describe('under a stand-in Electron binary', () => {
  const tracker = useProcessTracker();
  let dir = '';
  afterEach(() => removeTempDir(dir));

  it(
    'scenarios, fixtures, the naive runner and the guardian all run as Node; user runs never see the variable',
    async () => {
      dir = makeTempDir('tw-fake-electron-');
      const electron = createFakeElectron(dir);
      const child = spawn(electron.binary, [MAIN, JSON.stringify(SCENARIOS)], {
        env: { ...process.env, [RUN_AS_NODE_ENV]: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tracker.trackChild(child);
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), MAIN_WAIT_MS);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      expect(exited, 'the stand-in main process finished in time').toBe(true);
      expect(electron.refusals(), 'spawns that would have started a second app').toEqual([]);
      expect(child.exitCode, err).toBe(0);
      const report = JSON.parse(out);
      expect(report.runtime).toEqual({ execPath: electron.binary, electron: '45.5.0' });
      for (const scenario of report.scenarios)
        expect(scenario, JSON.stringify(scenario)).toMatchObject({ passed: true });
      expect(report.scenarios).toHaveLength(SCENARIOS.length);
      expect(report.guardian).toEqual({ released: true });
      expect(report.scriptRun).toEqual({ classification: 'error', exitCode: 7 });
      expect(report.userRun).toEqual({ classification: 'ok', exitCode: 0 });
    },
    SLOW_TEST_MS,
  );
});
