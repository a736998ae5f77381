/**
 * `npm start` where Electron cannot run: the start script says why in one line and serves the UI
 * on loopback like `treewarden serve`, URL first on stdout.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../packages/engine/test/helpers/fixtures.js';
import { waitFor } from '../../../packages/engine/test/helpers/wait-for.js';
import { findDisplay, findElectronBinary } from '../src/node/electron-binary.js';

const START = fileURLToPath(new URL('../dist/start.js', import.meta.url));
const START_WAIT_MS = 45_000;
const EXIT_WAIT_MS = 45_000;
const SLOW_TEST_MS = 120_000;

describe('start script', () => {
  it(
    'falls back to serving on loopback with one line saying why',
    async () => {
      const stateDir = makeTempDir('tw-start-');
      const env: NodeJS.ProcessEnv = { ...process.env, TREEWARDEN_HOME: stateDir };
      delete env.ELECTRON_OVERRIDE_DIST_PATH;
      // Even with a display, no binary: this machine cannot download Electron. Pretend there is
      // no display as well, so the test holds where a binary exists.
      delete env.DISPLAY;
      delete env.WAYLAND_DISPLAY;
      const child = spawn(process.execPath, [START, '--no-open'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      try {
        await waitFor(() => out.includes('\n') && err.includes('\n'), {
          timeoutMs: START_WAIT_MS,
          description: 'the URL and the reason',
        });
        expect(out.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
        const lines = err.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/Electron binary not available|no display/);
        expect(lines[0]).toMatch(/serving the UI on loopback instead$/);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve('still running'), EXIT_WAIT_MS);
        });
        expect(await Promise.race([exited, timeout])).toBe(0);
        clearTimeout(timer);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        removeTempDir(stateDir);
      }
    },
    SLOW_TEST_MS,
  );
});

describe('Electron probe', () => {
  it('never downloads: no path file means "not available"', () => {
    const dir = makeTempDir('tw-electron-');
    try {
      const probe = findElectronBinary({}, dir);
      expect(probe).toEqual({ ok: false, reason: expect.stringMatching(/Electron binary not available/) });
    } finally {
      removeTempDir(dir);
    }
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH and checks the binary exists', () => {
    const packageDir = fileURLToPath(new URL('../../../node_modules/electron', import.meta.url));
    const missing = findElectronBinary({ ELECTRON_OVERRIDE_DIST_PATH: '/nonexistent-electron' }, packageDir);
    expect(missing.ok).toBe(false);
    expect(missing.ok === false && missing.reason).toMatch(/\/nonexistent-electron\/electron/);
    const stub = makeTempDir('tw-electron-dist-');
    try {
      writeFileSync(join(stub, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
      expect(findElectronBinary({ ELECTRON_OVERRIDE_DIST_PATH: stub }, packageDir, 'linux')).toEqual({
        ok: true,
        binary: join(stub, 'electron'),
      });
    } finally {
      removeTempDir(stub);
    }
  });

  it('needs a display on Linux only', () => {
    expect(findDisplay({}, 'linux')).toMatch(/no display/);
    expect(findDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBeNull();
    expect(findDisplay({}, 'darwin')).toBeNull();
  });
});
