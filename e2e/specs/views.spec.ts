/**
 * Screenshots of the main views, light and dark, from a real scene: a lease with a process tree,
 * a zombie, an escaped descendant, a leaked tree and a finished kill. A test run writes them to the
 * ignored test-results folder; `npm run screenshots` writes the README's copies on purpose.
 */
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { SCREENSHOT_DIR, URL_ENV } from '../support/env';
import { expect, test } from '../support/fixtures';
import { buildScene } from '../support/scene';
import { KILL_TIMEOUT_MS, rows } from '../support/ui';

async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0); // no hover highlight in the picture
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

async function inBothThemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await shoot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('screenshots', () => {
  test.skip(({ isElectron }) => isElectron, 'screenshots come from the browser build');

  test('empty state', async ({ page }) => {
    // Show a newcomer's first look even though other specs share this host: hide its leases.
    await page.routeWebSocket(/\/ws/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((frame) => server.send(frame));
      server.onMessage((frame) => {
        if (typeof frame !== 'string') return ws.send(frame);
        const message = JSON.parse(frame);
        if (message.kind === 'event' && message.event.type === 'snapshot') {
          message.event.snapshot.leases = [];
          message.event.snapshot.orphans = [];
          message.event.snapshot.counts = { live: 0, leaked: 0 };
        }
        ws.send(JSON.stringify(message));
      });
    });
    await page.goto(process.env[URL_ENV] as string);
    await expect(page.getByRole('heading', { name: 'No runs yet' })).toBeVisible();
    await inBothThemes(page, 'empty');
  });

  test('runs, system, scenarios and dialogs', async ({ app }) => {
    test.setTimeout(180_000);
    await app.setViewportSize({ width: 1440, height: 1080 });
    const scene = await buildScene(app, 'agent-ci');
    try {
      // The host scans for leaks every few seconds while the system view is open (else once a minute).
      await app.getByRole('tab', { name: 'All processes' }).click();
      await expect(app.getByTestId('orphan-banner')).toBeVisible();
      await app.getByRole('tab', { name: 'Runs' }).click();
      const tree = app.locator('section.run', { hasText: 'run-forever.mjs worker' }).first();
      await rows(tree).nth(2).click();
      await inBothThemes(app, 'runs');

      await rows(tree).nth(2).click();
      await app.keyboard.press('k');
      await expect(app.getByRole('dialog', { name: 'Confirm kill' }).getByTestId('kill-preview-count')).toBeVisible();
      await inBothThemes(app, 'kill-confirm');
      await app.getByRole('button', { name: 'Cancel' }).click();

      await app.getByRole('tab', { name: 'All processes' }).click();
      await expect(app.getByTestId('system-count')).toContainText(/[1-9]\d* processes/);
      await inBothThemes(app, 'system');
      await app.getByRole('searchbox', { name: 'Search processes' }).fill('run-forever');
      await expect(app.getByTestId('system-count')).toContainText('shown');
      await inBothThemes(app, 'system-search');

      // One scenario run first, so its card shows the outcome against "Expected".
      await app.getByRole('tab', { name: 'Scenarios' }).click();
      const card = app.getByRole('article', { name: /ignores SIGTERM/ });
      await card.getByRole('button', { name: 'Run scenario' }).click();
      await expect(app.locator('section.run.selected .run-meta [data-classification]')).toBeVisible({
        timeout: KILL_TIMEOUT_MS,
      });
      await app.getByRole('tab', { name: 'Scenarios' }).click();
      await expect(card.getByTestId('scenario-result')).toBeVisible();
      await card.scrollIntoViewIfNeeded();
      await inBothThemes(app, 'scenarios');

      await app.getByRole('tab', { name: 'History' }).click();
      await expect(app.locator('.history table')).toBeVisible();
      await shoot(app, 'history-light');
    } finally {
      await scene.tearDown();
    }
  });
});
