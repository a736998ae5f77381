/**
 * Every process the engine starts to run JavaScript runs it as Node, also under Electron, where
 * process.execPath is the app binary. The pure helper is checked here; the whole path (scenarios,
 * fixtures, the naive runner, a guardian) under a stand-in Electron binary is checked in
 * packages/scenarios/test/electron-runtime.test.ts, since it runs scenarios.
 */
import { describe, expect, it } from 'vitest';
import { nodeCommand, RUN_AS_NODE_ENV } from '../../src/runtime/node-command.js';

describe('nodeCommand', () => {
  it('runs scripts with this binary, adding ELECTRON_RUN_AS_NODE=1 only under Electron', () => {
    expect(nodeCommand({ execPath: '/usr/bin/node', electron: false })).toEqual({ command: '/usr/bin/node', env: {} });
    expect(nodeCommand({ execPath: '/opt/Treewarden/treewarden', electron: true })).toEqual({
      command: '/opt/Treewarden/treewarden',
      env: { [RUN_AS_NODE_ENV]: '1' },
    });
  });
});
