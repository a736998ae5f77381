/**
 * Keyboard only, over the real serve and real processes: the skip link reaches the view; the view
 * tabs follow the WAI-ARIA tabs pattern (arrows, Home, End, one Tab stop); the process inspector
 * opens with Enter, closes with Escape and its Close hands the focus back to the row list; a kill,
 * a clean-up of a leaked tree and a trim of a pile-up are each decided without the mouse. The
 * mouse is used only to set scenes up (start a run), never to act.
 */
import type { Page } from '@playwright/test';
import { type FakeClaude, startFakeClaude } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { type PlantedLeak, plantLeakedTree } from '../support/leak';
import { isAlive } from '../support/serve';
import { expectFixtureReady, fixture, KILL_TIMEOUT_MS, rows, startRunFromUi } from '../support/ui';

const LEAK_SCAN_TIMEOUT_MS = 60_000;
const ALERT_TIMEOUT_MS = 60_000;

/** Presses Tab until `name` has the focus (at most `limit` times): what a keyboard user does. */
async function tabTo(app: Page, name: RegExp, limit = 12): Promise<void> {
  for (let i = 0; i < limit; i += 1) {
    const focused = await app.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (name.test(focused)) return;
    await app.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${name}`);
}

test.describe('keyboard only', () => {
  test.skip(({ isElectron }) => isElectron, 'plants processes beside the serve host');
  const stops: Array<() => void> = [];
  test.afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  test('skip link, arrow-key tabs, and the inspector opened by Enter, closed by Escape and Close', async ({ app }) => {
    await app.keyboard.press('Tab');
    const skip = app.getByRole('link', { name: 'Skip to the view' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await app.keyboard.press('Enter');
    await expect(app.locator('main#main')).toBeFocused();

    const selected = app.getByRole('tab', { selected: true });
    await expect(app.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
    await selected.focus();
    await app.keyboard.press('Home');
    const tab = (name: string) => app.getByRole('tab', { name, exact: true });
    await expect(tab('Runs')).toBeFocused();
    await app.keyboard.press('ArrowRight');
    await expect(tab('Sessions')).toHaveAttribute('aria-selected', 'true');
    await expect(tab('Sessions')).toBeFocused();
    await app.keyboard.press('End');
    await expect(tab('History')).toHaveAttribute('aria-selected', 'true');
    await app.keyboard.press('ArrowRight');
    await expect(tab('Runs')).toHaveAttribute('aria-selected', 'true');
    await app.keyboard.press('ArrowLeft');
    await expect(tab('History')).toBeFocused();
    await expect(app.locator('h1')).toHaveText('History');
    await app.keyboard.press('Home');
    await app.keyboard.press('ArrowRight');
    await app.keyboard.press('ArrowRight');
    await expect(tab('All processes')).toHaveAttribute('aria-selected', 'true');

    const tree = app.getByRole('tree', { name: 'All processes' });
    await expect(app.getByTestId('system-count')).toContainText(/[1-9]\d* processes/);
    // The toolbar's stops vary with the leaks on this machine: land on the list itself.
    await tree.focus();
    await app.keyboard.press('ArrowDown');
    await app.keyboard.press('ArrowDown');
    await app.keyboard.press('Enter');
    const inspector = app.locator('section.inspector');
    await expect(inspector).toBeVisible();
    await app.keyboard.press('Escape');
    await expect(inspector).toBeHidden();
    await expect(tree).toBeFocused();
    await app.keyboard.press('Enter');
    await expect(inspector).toBeVisible();
    await inspector.getByRole('button', { name: 'Close' }).focus();
    await app.keyboard.press('Enter');
    await expect(inspector).toBeHidden();
    await expect(tree).toBeFocused();
  });

  test('kill, clean-up and trim decided from the keyboard', async ({ app }) => {
    test.setTimeout(300_000);
    const piles: FakeClaude = await startFakeClaude({ mcpSets: 3 });
    stops.push(piles.stop);
    const leak: PlantedLeak = await plantLeakedTree();
    stops.push(leak.remove);

    await test.step('kill: k on the row, Tab past Cancel, Enter', async () => {
      const card = await startRunFromUi(app, {
        command: 'node',
        args: [fixture('spawn-children.mjs'), '2', 'run-forever.mjs'],
        timeoutSeconds: 300,
        lease: 'e2e-keyboard',
      });
      await expect(rows(card)).toHaveCount(3);
      await expectFixtureReady(card, 'parent');
      const root = Number(await rows(card).first().getAttribute('data-pid'));
      await card.getByRole('tree').focus();
      await app.keyboard.press('Home');
      await app.keyboard.press('k');
      const dialog = app.getByRole('dialog', { name: 'Confirm kill' });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      // The list of what dies comes first: until it is read, the kill button waits (disabled).
      await expect(dialog.getByTestId('kill-preview-count')).toBeVisible();
      await app.keyboard.press('Tab');
      await expect(dialog.getByRole('button', { name: /^Kill (tree|subtree)$/ })).toBeFocused();
      await app.keyboard.press('Enter');
      await expect(dialog).toBeHidden();
      await expect.poll(() => isAlive(root), { timeout: KILL_TIMEOUT_MS }).toBe(false);
    });

    await test.step('clean-up: Tab to "Clean up all", Enter, scroll the list, Tab to Clean up, Enter', async () => {
      // Set-up, not the decision: the host scans for leaks every 5 s while a view shows the system
      // (once a minute otherwise), so the planted leak shows without waiting for the slow scan.
      await app.getByRole('tab', { name: 'All processes' }).click();
      const banner = app.getByTestId('orphan-banner');
      await expect(banner).toContainText(`${leak.pid}`, { timeout: LEAK_SCAN_TIMEOUT_MS });
      // The browser tab says it too, for a user looking at another tab.
      await expect(app).toHaveTitle(/^\(\d+ leaked\) Treewarden$/);
      await banner.getByRole('button', { name: 'Clean up all' }).focus();
      await app.keyboard.press('Enter');
      const dialog = app.getByRole('dialog', { name: 'Confirm clean-up' });
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText(String(leak.pid));
      await tabTo(app, /^Clean up$/);
      await app.keyboard.press('Enter');
      await expect(dialog).toBeHidden();
      await expect.poll(() => isAlive(leak.pid), { timeout: KILL_TIMEOUT_MS }).toBe(false);
      await app.getByRole('tab', { name: 'Runs' }).click();
    });

    await test.step('trim: the alert card’s Trim…, Tab to Trim, Enter, Escape closes the answer', async () => {
      const dirName = piles.dir.slice(piles.dir.lastIndexOf('/') + 1);
      const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
      await expect(option.getByTestId('session-alert-badge')).toBeVisible({ timeout: ALERT_TIMEOUT_MS });
      await option.dispatchEvent('mousedown');
      // The badge shows once two sets are seen; under load the third comes a poll later, and Trim…
      // lists what the alert holds when it opens: wait for both older sets (four processes).
      await expect(app.getByTestId('session-view').getByTestId('session-alert')).toContainText('4 processes', {
        timeout: ALERT_TIMEOUT_MS,
      });
      const trimButton = app.getByTestId('session-view').getByRole('button', { name: 'Trim…' });
      await trimButton.focus();
      await app.keyboard.press('Enter');
      const dialog = app.getByRole('dialog', { name: /^Trim \d+ processes/ });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await tabTo(app, /^Trim$/);
      await app.keyboard.press('Enter');
      const answer = app.getByRole('dialog', { name: /the host's answer$/ });
      await expect(answer.getByTestId('trim-summary')).toHaveText(/^Trim: ended 4 of 4 processes$/, {
        timeout: KILL_TIMEOUT_MS,
      });
      await app.keyboard.press('Escape');
      await expect(answer).toBeHidden();
    });
  });
});
