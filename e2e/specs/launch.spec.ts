/**
 * The token reaches the page without any command line and leaves the address bar once the page
 * has it; a reload of the tab reconnects from sessionStorage.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { URL_ENV } from '../support/env';
import { expect, test } from '../support/fixtures';
import { startServe } from '../support/serve';

/** serve runs the opener right after printing its URL; node start-up on a loaded box included. */
const OPENER_WAIT_MS = 30_000;

/** A stand-in browser that only records the arguments serve gave it, then exits. */
function writeRecordingOpener(dir: string): { opener: string; argvFile: string } {
  const opener = join(dir, 'opener.sh');
  const argvFile = join(dir, 'opener.argv');
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$@" > "${argvFile}.tmp" && mv "${argvFile}.tmp" "${argvFile}"\n`);
  chmodSync(opener, 0o700);
  return { opener, argvFile };
}

test.describe('the serve token', () => {
  test('leaves the address bar once the page has it, and a reload reconnects', async ({ app, isElectron }) => {
    test.skip(isElectron, 'tokens belong to `serve`');
    expect(app.url()).not.toContain('token');
    await app.reload();
    await expect(app.locator('.conn-open')).toBeVisible();
    expect(app.url()).not.toContain('token');
    const token = new URL(process.env[URL_ENV] as string).searchParams.get('token') as string;
    expect(await app.evaluate(() => location.href)).not.toContain(token);
  });

  test('reaches the browser through a private launch page, never a command line', async ({ page, isElectron }) => {
    test.skip(isElectron, 'tokens belong to `serve`');
    const dir = mkdtempSync(join(tmpdir(), 'treewarden-e2e-opener-'));
    const { opener, argvFile } = writeRecordingOpener(dir);
    const serve = await startServe({ open: true, env: { TREEWARDEN_BROWSER: opener } });
    try {
      const token = new URL(serve.url).searchParams.get('token') as string;
      await expect.poll(() => existsSync(argvFile), { timeout: OPENER_WAIT_MS }).toBe(true);
      const argv = readFileSync(argvFile, 'utf8').trim().split('\n');
      expect(argv).toHaveLength(1);
      expect(argv.join(' ')).not.toContain(token);
      const launchPage = argv[0] as string;
      expect(statSync(launchPage).mode & 0o777).toBe(0o600);

      await page.goto(pathToFileURL(launchPage).toString());
      await expect(page.locator('.conn-open')).toBeVisible();
      expect(new URL(page.url()).origin).toBe(new URL(serve.url).origin);
      expect(page.url()).not.toContain(token);
      await page.reload();
      await expect(page.locator('.conn-open')).toBeVisible();
      // That serve deletes the page when it stops is checked in packages/host/test/serve-launch.test.ts.
    } finally {
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
