/**
 * `npm start` where Electron cannot run: the start script says why in one line and serves the UI
 * on loopback like `treewarden serve`, URL first on stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../packages/engine/test/helpers/fixtures.js';
import { waitFor } from '../../../packages/engine/test/helpers/wait-for.js';
import { findDisplay, findElectronBinary } from '../src/node/electron-binary.js';

const START = fileURLToPath(new URL('../dist/start.js', import.meta.url));
const START_WAIT_MS = 45_000;
const EXIT_WAIT_MS = 45_000;
const SLOW_TEST_MS = 120_000;

interface StartedScript {
  readonly child: ChildProcess;
  out(): string;
  err(): string;
  exit: Promise<number | null>;
}

function startScript(env: NodeJS.ProcessEnv): StartedScript {
  const child = spawn(process.execPath, [START, '--no-open'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

function withinBound<T>(promise: Promise<T>, ms: number): Promise<T | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the start script; it must print the URL and ONE reason line, then exit 0 on SIGTERM. */
async function expectFallback(env: NodeJS.ProcessEnv, reason: RegExp): Promise<void> {
  const started = startScript(env);
  try {
    await waitFor(() => started.out().includes('\n') && started.err().includes('\n'), {
      timeoutMs: START_WAIT_MS,
      description: 'the URL and the reason',
    });
    expect(started.out().split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    const lines = started.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(reason);
    expect(lines[0]).toMatch(/serving the UI on loopback instead$/);
    started.child.kill('SIGTERM');
    expect(await withinBound(started.exit, EXIT_WAIT_MS)).toBe(0);
  } finally {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
  }
}

/** An unpacked "Electron" whose binary is this shell script (ELECTRON_OVERRIDE_DIST_PATH). */
function standInElectron(dir: string, script: string): NodeJS.ProcessEnv {
  writeFileSync(join(dir, 'electron'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  // A display is claimed so that only the stand-in's own end decides.
  return { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dir, DISPLAY: ':99' };
}

describe('start script', () => {
  let dir = '';
  beforeEach(() => {
    dir = makeTempDir('tw-start-');
  });
  afterEach(() => removeTempDir(dir));

  it(
    'falls back to serving on loopback with one line saying why',
    async () => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.ELECTRON_OVERRIDE_DIST_PATH;
      // Even with a display, no binary: this machine cannot download Electron. Pretend there is
      // no display as well, so the test holds where a binary exists.
      delete env.DISPLAY;
      delete env.WAYLAND_DISPLAY;
      await expectFallback(env, /Electron binary not available|no display/);
    },
    SLOW_TEST_MS,
  );

  it(
    "falls back when Electron dies by a signal at start-up (Chromium's sandbox: SIGTRAP)",
    async () => {
      await expectFallback(standInElectron(dir, 'kill -TRAP $$'), /Electron was killed by SIGTRAP .*sandbox/);
    },
    SLOW_TEST_MS,
  );

  it(
    'falls back when Electron exits non-zero, or even 0, before its window came up',
    async () => {
      await expectFallback(standInElectron(dir, 'exit 1'), /Electron exited with code 1 before its window came up/);
      await expectFallback(standInElectron(dir, 'exit 0'), /Electron exited with code 0 before its window came up/);
    },
    SLOW_TEST_MS,
  );

  it(
    "once the window came up, passes on the app's own exit status and serves nothing",
    async () => {
      const env = standInElectron(
        dir,
        [
          'for arg in "$@"; do',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
          '  case "$arg" in --treewarden-ready-file=*) printf "window-shown\\n" > "${arg#*=}";; esac',
          'done',
          'exit 3',
        ].join('\n'),
      );
      const started = startScript(env);
      try {
        expect(await withinBound(started.exit, EXIT_WAIT_MS)).toBe(3);
        expect(started.out()).toBe('');
        expect(started.err()).toBe('');
      } finally {
        if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
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
