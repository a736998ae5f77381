/**
 * The packaging check: electron-builder `--linux dir` with this repository's configuration,
 * offline, against a stub Electron distribution, then the packaged tree is loaded with Node the
 * way the app uses it: koffi loads, pidfd and the subreaper are available, a guardian started
 * from the package adopts (subreaper), and the renderer, preload and icon are where the main
 * process looks for them. A `files` pattern that strips a module's loader fails here, not in
 * users' hands.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../packages/engine/test/helpers/fixtures.js';
import { resolveAppPaths } from '../src/node/app-paths.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILDER_CLI = join(ROOT, 'node_modules/electron-builder/cli.js');
const CHECK_SCRIPT = fileURLToPath(new URL('support/packaged-check.mjs', import.meta.url));
const ELECTRON_VERSION = '45.5.0';
/** electron-builder --linux dir takes ~6 s here alone; bounded for a loaded 2-core machine. */
const PACKAGE_TIMEOUT_MS = 120_000;
/** Node start-up, a guardian start and its release. */
const CHECK_TIMEOUT_MS = 60_000;

/** What electron-builder needs of an unpacked Electron: the binary, LICENSE, version, resources/. */
function createStubElectronDist(dir: string): void {
  mkdirSync(join(dir, 'resources'), { recursive: true });
  writeFileSync(join(dir, 'electron'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(join(dir, 'LICENSE'), 'stub for the packaging check\n');
  writeFileSync(join(dir, 'version'), `${ELECTRON_VERSION}\n`);
}

describe('packaged app (electron-builder --linux dir)', () => {
  let work = '';
  let unpacked = '';

  beforeAll(async () => {
    work = makeTempDir('tw-package-');
    const stub = join(work, 'electron-dist');
    createStubElectronDist(stub);
    await run(
      process.execPath,
      [
        BUILDER_CLI,
        '--linux',
        'dir',
        '--config',
        'electron-builder.yml',
        `-c.electronDist=${stub}`,
        `-c.directories.output=${join(work, 'release')}`,
        // Nothing of ours is built from source; keep the check offline and quick.
        '-c.npmRebuild=false',
      ],
      { cwd: ROOT, timeout: PACKAGE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
    );
    unpacked = join(work, 'release', 'linux-unpacked');
  }, PACKAGE_TIMEOUT_MS + 10_000);

  afterAll(() => removeTempDir(work));

  it(
    'loads koffi, pidfd and the subreaper from the packaged engine, and its guardian adopts',
    async () => {
      const appDir = join(unpacked, 'resources', 'app');
      expect(existsSync(join(appDir, 'node_modules/koffi/src/koffi/index.cjs'))).toBe(true);
      const { stdout } = await run(process.execPath, [CHECK_SCRIPT, appDir], {
        cwd: work,
        timeout: CHECK_TIMEOUT_MS,
      });
      const report = JSON.parse(stdout);
      expect(report.capabilities).toEqual({ platform: 'linux', koffiError: null, pidfd: true, subreaper: true });
      expect(report.warnings).toEqual([]);
      expect(report.guardian).toEqual({ subreaper: true, exited: true });
      expect(report.scenarios).toBeGreaterThan(0);
    },
    CHECK_TIMEOUT_MS + 10_000,
  );

  it('puts the renderer, the preload and the icon where the main process looks for them', () => {
    const resources = join(unpacked, 'resources');
    const paths = resolveAppPaths({
      isPackaged: true,
      resourcesPath: resources,
      distDir: join(resources, 'app', 'dist'),
    });
    for (const file of [paths.rendererIndex, paths.preload, paths.icon, join(resources, 'app', 'dist', 'main.js')]) {
      expect(existsSync(file), file).toBe(true);
    }
    expect(readFileSync(paths.rendererIndex, 'utf8')).toMatch(/<div id="root">/);
    expect(existsSync(join(unpacked, 'treewarden')), 'the executable is named treewarden').toBe(true);
  });

  it('ships the app identity the desktop entry and user data rely on, and none of our sources', () => {
    const appDir = join(unpacked, 'resources', 'app');
    const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      productName: 'Treewarden',
      desktopName: 'treewarden.desktop',
      main: 'dist/main.js',
    });
    // app.name (productName), the desktop entry's name and StartupWMClass come from these.
    const config = readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8');
    expect(config).toMatch(new RegExp(`^productName: ${manifest.productName}$`, 'm'));
    expect(`${config.match(/^executableName: (\S+)$/m)?.[1]}.desktop`).toBe(manifest.desktopName);
    expect(config).toMatch(/^linux:\n(?: {2}.*\n)*? {2}syncDesktopName: true$/m);
    for (const name of ['engine', 'host', 'protocol']) {
      expect(existsSync(join(appDir, 'node_modules/@treewarden', name, 'src')), `${name}/src`).toBe(false);
    }
    expect(existsSync(join(appDir, 'node_modules/@treewarden/engine/fixtures/run-forever.mjs'))).toBe(true);
    expect(existsSync(join(appDir, 'src'))).toBe(false);
  });
});
