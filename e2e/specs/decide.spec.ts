/**
 * At the moment of decision the screen says what is true, through the real serve and real
 * processes: the kill confirmation lists every process the kill ends (a double-forked daemon
 * outside the tree included, found by the run cookie), is confirmed from the keyboard, and the run
 * then reads "cancelled · killed by UI" on its card and in History (never `error`). All processes
 * marks the run's members with their run and lease, also when searched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startCliRun } from '../support/cli-run';
import { REPO_ROOT } from '../support/env';
import { startFakeClaude } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { isAlive } from '../support/serve';
import { fixture, KILL_TIMEOUT_MS } from '../support/ui';

const SCREENSHOTS = join(REPO_ROOT, 'e2e', 'test-results', 'decide');

/** The live process whose argv ends with `role` and whose environment carries the run's cookie. */
function cookieCarrier(runId: string, role: string): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (args.at(-1) !== role) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      if (environ.includes(`TREEWARDEN_RUN_ID=${runId}`)) return Number(name);
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

async function openLease(app: Page, name: string): Promise<void> {
  const option = app.getByRole('option', { name: new RegExp(name) }).first();
  await expect(option).toBeVisible();
  await option.dispatchEvent('mousedown');
}

test.describe('deciding on true facts', () => {
  test.skip(({ isElectron }) => isElectron, 'drives the CLI against the serve state dir');

  test('the kill dialog lists what dies, escapees included; the run then reads killed by UI', async ({ app }) => {
    // Its own lease name: a repeat must not open the earlier, ended lease of the same name.
    const leaseName = `e2e-decide-${Date.now()}`;
    const cli = await startCliRun(leaseName, 300, [process.execPath, fixture('double-fork.mjs')]);
    try {
      await openLease(app, leaseName);
      const card = app.locator(`section.run[data-run-id="${cli.runId}"]`);
      await expect(card.getByRole('treeitem')).toHaveCount(1);
      // The daemon the outer process double-forked: reparented out of the tree, carrying the run's cookie.
      const daemonPid = await expect
        .poll(() => cookieCarrier(cli.runId, 'daemon'), { timeout: 30_000 })
        .not.toBeNull()
        .then(() => cookieCarrier(cli.runId, 'daemon') as number);

      // All processes marks the members with their run and lease, also when searched for.
      await app.getByRole('tab', { name: 'All processes' }).click();
      await app.getByRole('searchbox', { name: 'Search processes' }).fill('double-fork');
      const outerRow = app.locator(`[role="treeitem"][data-pid="${cli.rootPid}"]`);
      await expect(outerRow.getByTestId('member-mark')).toContainText(`lease ${leaseName}`);
      for (const [width, height] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await app.setViewportSize({ width, height });
        await app.screenshot({ path: join(SCREENSHOTS, `system-marks-${width}.png`) });
      }
      await app.setViewportSize({ width: 1440, height: 900 });
      await app.getByRole('tab', { name: 'Runs' }).click();
      await openLease(app, leaseName);

      await card.getByRole('button', { name: 'Kill tree' }).click();
      const dialog = app.getByRole('dialog', { name: 'Confirm kill' });
      await expect(dialog.getByTestId('kill-preview-count')).toContainText('2 processes');
      await expect(dialog.getByTestId('kill-preview-count')).toContainText('1 of them outside the tree');
      const list = dialog.getByRole('list', { name: 'Processes this kill ends' });
      await expect(list.locator(`li[data-pid="${cli.rootPid}"]`)).toContainText('double-fork.mjs');
      await expect(list.locator(`li[data-pid="${daemonPid}"]`)).toContainText('escaped · found by run cookie');
      await expect(list.locator(`li[data-pid="${daemonPid}"]`)).toContainText('run-forever.mjs daemon');
      for (const [width, height] of [
        [1440, 900],
        [1024, 700],
      ] as const) {
        await app.setViewportSize({ width, height });
        await app.screenshot({ path: join(SCREENSHOTS, `kill-dialog-${width}.png`) });
      }
      await app.setViewportSize({ width: 1440, height: 900 });

      // Keyboard only: Cancel has the focus; the list, then the Kill button, are reached by Tab.
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await list.focus();
      await expect(list).toBeFocused();
      await dialog.getByRole('button', { name: 'Cancel' }).focus();
      await app.keyboard.press('Tab');
      await expect(dialog.getByRole('button', { name: 'Kill tree' })).toBeFocused();
      await app.keyboard.press('Enter');
      await expect(dialog).toBeHidden();

      await expect.poll(() => isAlive(cli.rootPid) || isAlive(daemonPid), { timeout: KILL_TIMEOUT_MS }).toBe(false);
      const badge = card.locator('[data-classification]').first();
      await expect(badge).toHaveAttribute('data-classification', 'cancelled', { timeout: KILL_TIMEOUT_MS });
      await expect(badge).toContainText('killed by UI');
      await app.screenshot({ path: join(SCREENSHOTS, 'killed-card-1440.png') });

      await app.getByRole('tab', { name: 'History' }).click();
      const row = app.locator('tr').filter({ hasText: cli.runId });
      await expect(row.locator('[data-classification]')).toHaveAttribute('data-classification', 'cancelled');
      await expect(row.locator('[data-classification]')).toContainText('killed by UI');
    } finally {
      const daemon = cookieCarrier(cli.runId, 'daemon');
      if (daemon !== null) process.kill(daemon, 'SIGKILL'); // cookie-checked just now: the run's own daemon
      cli.cleanup();
    }
  });

  test('a session whose launching shell exited shows its directory, not "unknown"', async ({ app }) => {
    const agent = await startFakeClaude({ orphaned: true });
    try {
      const dirName = agent.dir.slice(agent.dir.lastIndexOf('/') + 1);
      const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
      await expect(option).toBeVisible({ timeout: 30_000 });
      await option.dispatchEvent('mousedown');
      await expect(app.getByTestId('session-view')).toContainText(`in ${agent.dir}`);
      await expect(app.getByTestId('session-view')).not.toContainText('an unknown directory');
      await app.setViewportSize({ width: 1024, height: 700 });
      await app.screenshot({ path: join(SCREENSHOTS, 'session-cwd-1024.png') });
    } finally {
      agent.stop();
    }
  });
});
