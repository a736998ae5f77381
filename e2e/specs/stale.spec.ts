/**
 * When the host goes away, the screen must not keep looking live: a serve of this test's own is
 * stopped under an open page, and the page then says the data is from before, greys it (the
 * header's counts too), and lets nothing act on it (the view and banners inert, New run disabled).
 */
import { join } from 'node:path';
import { TEST_SHOT_DIR } from '../support/env';
import { expect, test } from '../support/fixtures';
import { startServe } from '../support/serve';

test.describe('a lost host connection', () => {
  test.skip(({ isElectron }) => isElectron, 'stops a serve of its own');

  test('stale data is greyed, said to be stale, and nothing acts on it', async ({ page }) => {
    const serve = await startServe();
    try {
      await page.goto(serve.url);
      await expect(page.locator('.conn-open')).toBeVisible();
      await expect(page.getByRole('button', { name: 'New run' })).toBeEnabled();
      // Stale needs something shown first: the host's first snapshot (its counts).
      await expect(page.getByTestId('counts')).toBeVisible();
      await expect(page.getByTestId('counts')).not.toHaveAttribute('data-stale', /.*/);
      await expect(page.getByTestId('stale-notice')).toHaveCount(0);
      await expect(page.getByTestId('app-body')).not.toHaveAttribute('inert', /.*/);
    } finally {
      await serve.stop();
    }
    await expect(page.getByTestId('stale-notice')).toContainText('Lost the host connection', { timeout: 30_000 });
    await expect(page.getByTestId('app-body')).toHaveAttribute('inert', /.*/);
    await expect(page.locator('.app')).toHaveClass(/\bstale\b/);
    // The header's counts are that same past picture: marked, greyed, and said to be the last known.
    const counts = page.getByTestId('counts');
    await expect(counts).toHaveAttribute('data-stale', 'true');
    await expect(counts).toContainText('last known');
    await expect(counts).toHaveAttribute('title', /^Last known at \d\d:\d\d:\d\d: the host connection is lost/);
    expect(await counts.locator('.count-live').evaluate((node) => getComputedStyle(node).filter)).toContain(
      'grayscale',
    );
    await expect(counts.locator('.count-leaked')).not.toHaveClass(/\bhot\b/);
    await expect(page.getByTestId('banners')).toHaveAttribute('inert', /.*/);
    const newRun = page.getByRole('button', { name: 'New run' });
    await expect(newRun).toBeDisabled();
    await expect(newRun).toHaveAttribute('title', /No host connection/);
    await page.setViewportSize({ width: 1024, height: 700 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(TEST_SHOT_DIR, `stale-1024x700-${scheme}.png`) });
    }
  });
});
