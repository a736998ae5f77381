/**
 * User runs get the user's environment, not the app's packaging artefacts: the pure function on
 * the environments an AppImage (electron-builder's AppRun) and Electron produce, then a real lease
 * whose guardian and run get it while this process carries the artefacts.
 */
import { openLease } from '@treewarden/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { userEnvironment } from '../src/node/user-environment.js';

const BUNDLE = '/tmp/.mount_TreewaK3x9Qp';
/** Guardian start-up and one shell run on a loaded machine. */
const LEASE_TEST_MS = 60_000;

/** What the user's terminal had before the AppImage started. */
const USER = {
  HOME: '/home/ada',
  PATH: '/home/ada/bin:/usr/local/bin:/usr/bin:/bin',
  XDG_CURRENT_DESKTOP: 'GNOME',
  LD_PRELOAD: '/usr/lib/libmine.so',
  NOTES: `${BUNDLE}-notes/readme`,
};

/** electron-builder's AppRun and the type-2 runtime applied to USER, plus Electron's own. */
const PACKAGED: NodeJS.ProcessEnv = {
  ...USER,
  APPDIR: BUNDLE,
  APPIMAGE: '/home/ada/Apps/Treewarden.AppImage',
  ARGV0: './Treewarden.AppImage',
  OWD: '/home/ada/src',
  PATH: `${BUNDLE}:${BUNDLE}/usr/sbin:${USER.PATH}`,
  XDG_DATA_DIRS: `${BUNDLE}/usr/share/:/usr/share/gnome:/usr/local/share/:/usr/share/`,
  LD_LIBRARY_PATH: `${BUNDLE}/usr/lib`,
  GSETTINGS_SCHEMA_DIR: `${BUNDLE}//usr/share/glib-2.0/schemas:`,
  PYTHONHOME: `${BUNDLE}/usr/`,
  CHROME_DESKTOP: 'treewarden.desktop',
  ELECTRON_RUN_AS_NODE: '1',
  ELECTRON_NO_ATTACH_CONSOLE: '1',
  XDG_CURRENT_DESKTOP: 'Unity',
  ORIGINAL_XDG_CURRENT_DESKTOP: 'GNOME',
};

describe('userEnvironment', () => {
  it("removes an AppImage's and Electron's additions and keeps everything of the user's", () => {
    expect(userEnvironment(PACKAGED)).toEqual({
      ...USER,
      // The defaults AppRun appended cannot be told from the user's: only the bundle's entry goes.
      XDG_DATA_DIRS: '/usr/share/gnome:/usr/local/share/:/usr/share/',
    });
  });

  it("keeps the user's own entries of a list the bundle prepended to", () => {
    const env = { ...PACKAGED, LD_LIBRARY_PATH: `${BUNDLE}/usr/lib:/opt/cuda/lib64` };
    expect(userEnvironment(env).LD_LIBRARY_PATH).toBe('/opt/cuda/lib64');
  });

  it('outside an AppImage changes nothing but Electron’s variables', () => {
    const env = { ...USER, LD_LIBRARY_PATH: '/opt/lib', APPIMAGE: '/somewhere', ELECTRON_ENABLE_LOGGING: '1' };
    expect(userEnvironment(env)).toEqual({ ...USER, LD_LIBRARY_PATH: '/opt/lib', APPIMAGE: '/somewhere' });
  });

  it('a relative APPDIR is not a bundle: nothing is filtered by it', () => {
    const env = { ...USER, APPDIR: 'usr', PATH: 'usr:/bin' };
    expect(userEnvironment(env)).toEqual({ ...USER, APPDIR: 'usr', PATH: 'usr:/bin' });
  });
});

describe('a lease opened with the user environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(PACKAGED)) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it(
    "gives its guardian and runs none of this process's packaging artefacts",
    async () => {
      process.env.APPDIR = BUNDLE;
      process.env.LD_LIBRARY_PATH = `${BUNDLE}/usr/lib`;
      process.env.CHROME_DESKTOP = 'treewarden.desktop';
      const lease = await openLease({
        name: 'user-environment',
        holder: 'user-environment.test',
        guardianOutput: 'ignore',
        environment: userEnvironment(process.env),
      });
      try {
        const run = lease.startRun({
          command: '/bin/sh',
          args: ['-c', 'test -z "$APPDIR$LD_LIBRARY_PATH$CHROME_DESKTOP" && test -n "$HOME"'],
          timeoutSeconds: 30,
        });
        const outcome = await run.outcome;
        expect(outcome.classification).toBe('ok');
        expect(outcome.exitCode).toBe(0);
      } finally {
        await lease.release();
      }
    },
    LEASE_TEST_MS,
  );
});
