/** Paths and launch settings shared by the Playwright config, global setup, fixtures and bench. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI_MAIN = join(REPO_ROOT, 'apps', 'cli', 'dist', 'main.js');
export const RENDERER_INDEX = join(REPO_ROOT, 'apps', 'renderer', 'dist', 'index.html');
export const DESKTOP_MAIN = join(REPO_ROOT, 'apps', 'desktop', 'dist', 'main.js');
export const FIXTURES_DIR = join(REPO_ROOT, 'packages', 'engine', 'fixtures');
/** The README's pictures: written only by `npm run screenshots` (REFRESH_SCREENSHOTS_ENV set). */
export const README_SHOT_DIR = join(REPO_ROOT, 'e2e', 'screenshots');
/** Where test runs put their pictures: ignored by git, so `npm test` leaves the tree clean. */
export const TEST_SHOT_DIR = join(REPO_ROOT, 'e2e', 'test-results', 'screenshots');
export const REFRESH_SCREENSHOTS_ENV = 'TREEWARDEN_REFRESH_SCREENSHOTS';
/** The README's folder when refreshing on purpose, else the ignored test folder. */
export const SCREENSHOT_DIR = process.env[REFRESH_SCREENSHOTS_ENV] === '1' ? README_SHOT_DIR : TEST_SHOT_DIR;

export { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs';

export const ELECTRON_SKIP_MESSAGE = 'Electron e2e skipped: no Electron binary on this machine';

/** Env names the global setup uses to hand the serve URL to the test workers. */
export const URL_ENV = 'TREEWARDEN_E2E_URL';
export const HOME_ENV = 'TREEWARDEN_E2E_HOME';
/** The fixtures' report file (packages/engine/fixtures/lib/report.mjs), given to the host so its runs report. */
export const FIXTURE_REPORT_ENV = 'TREEWARDEN_FIXTURE_REPORT';

/**
 * The Electron binary, found WITHOUT requiring the `electron` package: its index.js starts a
 * download when the binary is missing, which must never happen here.
 */
export function findElectronBinary(): string | null {
  const packageDir = join(REPO_ROOT, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const candidate = override
    ? join(override, relative ?? 'electron')
    : relative
      ? join(packageDir, 'dist', relative)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}
