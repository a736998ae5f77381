/**
 * Ports and resource history against the real host: a run with a listening server shows its
 * port chips and the details' Listening line, sparklines and the chart draw real paths after a
 * few ticks, the System view's Ports column sorts listeners first, and the Flagged filter says
 * plainly when nothing is flagged. Pictures at 1440×900 and 1024×700 go to test-results.
 */
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { TEST_SHOT_DIR } from '../support/env';
import { expect, test } from '../support/fixtures';
import { clippedButtons, clippedMarkers, overlappingRunHeads } from '../support/layout-checks';
import { PORT_WAIT_MS } from '../support/scene';
import { fixture, KILL_TIMEOUT_MS, killRunFromUi, releaseSelectedLease, rows, startRunFromUi } from '../support/ui';

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

/** Sparklines need a few samples: snapshots come once a second, slower on a loaded machine. */
const CURVE_WAIT_MS = 30_000;

async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(0, 0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(TEST_SHOT_DIR, `resources-${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function expectTidy(page: Page, where: string): Promise<void> {
  expect(await clippedButtons(page), `buttons in ${where}`).toEqual([]);
  expect(await overlappingRunHeads(page), `run headers in ${where}`).toEqual([]);
  expect(await clippedMarkers(page), `markers in ${where}`).toEqual([]);
}

/** Waits until the SVG path inside `svg` has a drawn line (a move and at least one segment). */
async function expectDrawn(svg: Locator): Promise<void> {
  await expect(svg.locator('path')).toHaveAttribute('d', /^M[\d.]+,[\d.]+ L/, { timeout: CURVE_WAIT_MS });
}

/** The server's card, its details and their pictures, then the kill that takes its ports away. */
async function checkServerRun(app: Page, card: Locator): Promise<void> {
  const chips = card.getByTestId('port-chips');
  // The server listens on TCP and UDP; its setsid child on a TCP port of its own.
  await expect(chips.locator('li')).toHaveCount(3, { timeout: PORT_WAIT_MS });
  await expect(chips.locator('li', { hasText: /^udp :\d+$/ })).toHaveCount(1);
  await expect(chips.locator('li', { hasText: /^:\d+$/ })).toHaveCount(2);
  await expect(chips).toHaveAttribute('aria-label', /^Listening: (tcp|udp) 127\.0\.0\.1:\d+/);

  await expectDrawn(card.getByTestId('run-spark-cpu'));
  await expectDrawn(card.getByTestId('run-spark-memory'));
  await expect(card.getByTestId('run-spark-memory')).toHaveAttribute(
    'aria-label',
    /^Memory [\d.]+ \w+, (rising|falling|steady) over the last/,
  );
  await expectDrawn(rows(card).first().locator('svg.row-spark'));

  await rows(card).first().click();
  const details = app.locator('aside.details');
  const folded = details.locator('.details-rail');
  if (await folded.isVisible()) await folded.click();
  const listening = details.getByTestId('process-listening');
  await expect(listening).toContainText(/tcp 127\.0\.0\.1:\d+/);
  await expect(listening).toContainText(/udp 127\.0\.0\.1:\d+/);
  const chart = details.getByTestId('resource-chart').first();
  await expectDrawn(chart.getByTestId('chart-cpu'));
  await expectDrawn(chart.getByTestId('chart-memory'));
  await expect(chart).toContainText('now');
  await expect(chart).toContainText(/\d+(\.\d)? s ago/);

  for (const size of SIZES) {
    await app.setViewportSize(size);
    const tag = `${size.width}x${size.height}`;
    if (await folded.isVisible()) await folded.click();
    await expect(chart).toBeVisible();
    await expectTidy(app, `runs with ports at ${tag}`);
    await shoot(app, `runs-${tag}`);
  }

  // Narrow windows overlay the details on the runs: close them before reaching for the card.
  await details.getByRole('button', { name: 'Close details' }).click();
  await app.setViewportSize(SIZES[0]);
  await killRunFromUi(app, card);
  await expect(rows(card)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
  await expect(chips).toHaveCount(0);
}

test.describe('ports and resource history', () => {
  test('a server run shows its ports, its curves and its chart; the chips go with the kill', async ({ app }) => {
    test.setTimeout(180_000);
    const started = await startRunFromUi(app, {
      command: 'node',
      args: [fixture('port-server.mjs')],
      timeoutSeconds: 300,
      lease: 'e2e-ports',
    });
    try {
      await checkServerRun(app, app.locator(`section.run[data-run-id="${await started.getAttribute('data-run-id')}"]`));
    } finally {
      await app.setViewportSize(SIZES[0]);
      const close = app.getByRole('button', { name: 'Close details' });
      if (await close.isVisible()) await close.click();
      await app
        .getByRole('option', { name: /e2e-ports/ })
        .first()
        .click();
      await releaseSelectedLease(app);
    }
  });

  test('the System view sorts by port and says when nothing is flagged', async ({ app }) => {
    await app.getByRole('tab', { name: 'All processes' }).click();
    await expect(app.getByTestId('system-count')).toContainText(/[1-9]\d* processes/);
    // `treewarden serve` itself listens on loopback: at least one row has a port once the map is read.
    const ports = app.locator('.prow-header .cell', { hasText: 'Ports' });
    await ports.getByRole('button').click();
    await expect(ports).toHaveAttribute('data-sort', 'ascending');
    const firstPorts = app.locator('.system-scroll [role="treeitem"] .col-ports').first();
    await expect(firstPorts).toHaveText(/:\d+/, { timeout: PORT_WAIT_MS });

    await app.getByRole('button', { name: 'Flagged', exact: true }).click();
    // History starts when the view opens; no process can have spun for minutes yet.
    await expect(app.getByTestId('system-empty')).toContainText('Nothing is flagged');

    await app.getByRole('button', { name: 'Thresholds…' }).click();
    const form = app.getByRole('form', { name: 'Flag thresholds' });
    await expect(form).toBeVisible();
    const cpu = form.getByLabel('CPU at least');
    await cpu.fill('0');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByRole('alert')).toHaveText(/between 1 and \d+/);
    await cpu.fill('80');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form).toBeHidden();
    await expect(app.getByRole('button', { name: 'Thresholds…' })).toHaveAttribute('title', /CPU ≥ 80 %/);

    for (const size of SIZES) {
      await app.setViewportSize(size);
      await app.getByRole('button', { name: 'Show all' }).click();
      await expectTidy(app, `system at ${size.width}x${size.height}`);
      await shoot(app, `system-${size.width}x${size.height}`);
      await app.getByRole('button', { name: 'Flagged', exact: true }).click();
    }
  });
});
