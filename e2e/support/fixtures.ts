/**
 * The `app` fixture: the Treewarden UI, in Chromium over the real `serve` (chromium project) or
 * in the desktop app through Playwright's Electron support (electron project, where a binary exists).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, _electron as electron, expect, type Page } from '@playwright/test';
import { DESKTOP_MAIN, ELECTRON_SKIP_MESSAGE, findElectronBinary, URL_ENV } from './env';

export interface AppFixtures {
  app: Page;
  /** True in the electron project: serve-only specs (tokens) skip themselves there. */
  isElectron: boolean;
}

export const test = base.extend<AppFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads fixture dependencies from this pattern
  isElectron: async ({}, use, testInfo) => {
    await use(testInfo.project.name === 'electron');
  },
  app: async ({ page, isElectron }, use, testInfo) => {
    if (!isElectron) {
      const url = process.env[URL_ENV];
      if (!url) throw new Error(`${URL_ENV} is not set: the global setup did not start serve`);
      await page.goto(url);
      await expect(page.locator('.conn-open')).toBeVisible();
      await use(page);
      return;
    }
    const binary = findElectronBinary();
    testInfo.skip(!binary, ELECTRON_SKIP_MESSAGE);
    const home = mkdtempSync(join(tmpdir(), 'treewarden-e2e-electron-'));
    const application = await electron.launch({
      executablePath: binary as string,
      args: [DESKTOP_MAIN],
      env: { ...process.env, TREEWARDEN_HOME: home } as Record<string, string>,
    });
    try {
      const window = await application.firstWindow();
      await expect(window.locator('.conn-open')).toBeVisible();
      await use(window);
    } finally {
      await application.close();
      rmSync(home, { recursive: true, force: true });
    }
  },
});

export { expect };
