/**
 * `treewarden serve` hands its token to the browser through a private launch page, never through
 * a command line: the stand-in browser (TREEWARDEN_BROWSER) records its argv and stays alive while
 * every /proc/PID/cmdline on the machine is searched for the token.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, makeTempDir, removeTempDir, waitFor } from '../../engine/test/helpers/index.js';
import { LAUNCH_DIR_NAME } from '../src/serve/launch-page.js';
import { SERVE_START_WAIT_MS, type ServeChild, startServeChild } from './serve-child.js';

const SLOW_TEST_MS = 120_000;
/** The stand-in browser's own cap on its lifetime (tenths of a second), should the test die first. */
const OPENER_MAX_TENTHS = 900;

interface Opener {
  readonly path: string;
  readonly argvFile: string;
  readonly pidFile: string;
  readonly stopFile: string;
}

/** Records its pid and argv, then waits (bounded) for the test to let it go. */
function writeOpener(dir: string): Opener {
  const path = join(dir, 'opener.sh');
  const opener = { path, argvFile: `${path}.argv`, pidFile: `${path}.pid`, stopFile: `${path}.stop` };
  writeFileSync(
    path,
    `#!/bin/sh
printf '%s\\n' "$@" > "$0.argv.tmp" && mv "$0.argv.tmp" "$0.argv"
echo $$ > "$0.pid.tmp" && mv "$0.pid.tmp" "$0.pid"
i=0
while [ ! -e "$0.stop" ] && [ $i -lt ${OPENER_MAX_TENTHS} ]; do sleep 0.1; i=$((i+1)); done
`,
  );
  chmodSync(path, 0o700);
  return opener;
}

/** Every process on the machine whose command line contains `secret`. */
function cmdlinesContaining(secret: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (cmdline.includes(secret)) found.push(`${name}: ${cmdline.replaceAll('\0', ' ')}`);
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** A pid no process has now: the launch page of a serve that died without cleaning up. */
function deadPid(): number {
  for (let pid = 4_000_000; pid > 1; pid -= 7919) if (!existsSync(`/proc/${pid}`)) return pid;
  throw new Error('every probed pid is alive');
}

async function releaseOpener(opener: Opener): Promise<void> {
  writeFileSync(opener.stopFile, '');
  if (!existsSync(opener.pidFile)) return;
  const pid = Number(readFileSync(opener.pidFile, 'utf8'));
  await waitFor(() => !isRunning(pid), { timeoutMs: SERVE_START_WAIT_MS, description: 'the stand-in browser to exit' });
}

describe.skipIf(process.platform !== 'linux')('serve opens the browser without the token on any command line', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(prepare?: (stateDir: string) => void): Promise<{ served: ServeChild; opener: Opener }> {
    const dir = makeTempDir('tw-launch-');
    cleanups.push(() => removeTempDir(dir));
    const stateDir = join(dir, 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    prepare?.(stateDir);
    const opener = writeOpener(dir);
    cleanups.push(() => releaseOpener(opener));
    const served = await startServeChild({ open: true, stateDir, env: { TREEWARDEN_BROWSER: opener.path } });
    cleanups.push(() => served.dispose());
    return { served, opener };
  }

  it(
    'passes only the path of a 0600 page in a 0700 directory, and deletes the page when it stops',
    async () => {
      const stale = `serve-${deadPid()}-0123abcd.html`;
      const { served, opener } = await start((stateDir) => {
        mkdirSync(join(stateDir, LAUNCH_DIR_NAME), { mode: 0o700 });
        writeFileSync(join(stateDir, LAUNCH_DIR_NAME, stale), 'left by a serve that was SIGKILLed');
      });
      await waitFor(() => existsSync(opener.pidFile), { timeoutMs: SERVE_START_WAIT_MS, description: 'the opener' });
      const argv = readFileSync(opener.argvFile, 'utf8').trim().split('\n');
      expect(argv).toEqual([expect.stringContaining(join(served.stateDir, LAUNCH_DIR_NAME))]);
      const page = argv[0] as string;

      // While serve, the opener and its sleeps are all alive: no command line anywhere holds the token.
      expect(cmdlinesContaining(served.token)).toEqual([]);
      expect(argv.join(' ')).not.toContain(served.token);

      expect(statSync(page).mode & 0o777).toBe(0o600);
      expect(statSync(join(served.stateDir, LAUNCH_DIR_NAME)).mode & 0o777).toBe(0o700);
      expect(readFileSync(page, 'utf8')).toContain(`/#token=${served.token}`);
      expect(existsSync(join(served.stateDir, LAUNCH_DIR_NAME, stale))).toBe(false);

      expect(await served.stop()).toBe(0);
      expect(existsSync(page)).toBe(false);
      expect(readdirSync(join(served.stateDir, LAUNCH_DIR_NAME))).toEqual([]);
    },
    SLOW_TEST_MS,
  );

  it.each([
    [
      'a launch directory others can read',
      (stateDir: string) => {
        mkdirSync(join(stateDir, LAUNCH_DIR_NAME));
        chmodSync(join(stateDir, LAUNCH_DIR_NAME), 0o755);
      },
      /chmod 700/,
    ],
    [
      'a launch directory that is a symlink',
      (stateDir: string) => {
        const elsewhere = join(stateDir, '..', 'elsewhere');
        mkdirSync(elsewhere, { mode: 0o700 });
        symlinkSync(elsewhere, join(stateDir, LAUNCH_DIR_NAME));
      },
      /not a directory/,
    ],
  ])(
    'refuses %s: no page is written and no browser is started',
    async (_name, prepare, reason) => {
      const { served, opener } = await start(prepare);
      const notice = await waitFor(() => /not opening a browser.*/.exec(served.stderr())?.[0], {
        timeoutMs: SERVE_START_WAIT_MS,
        description: 'the refusal on stderr',
      });
      expect(notice).toMatch(reason);
      expect(existsSync(opener.argvFile)).toBe(false);
      const elsewhere = join(served.stateDir, '..', 'elsewhere');
      if (existsSync(elsewhere)) expect(readdirSync(elsewhere)).toEqual([]);
      expect(served.child.exitCode).toBeNull();
    },
    SLOW_TEST_MS,
  );
});
