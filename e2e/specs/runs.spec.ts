import { join } from 'node:path';
import { TEST_SHOT_DIR } from '../support/env';
import { expect, test } from '../support/fixtures';
import {
  expectFixtureReady,
  fixture,
  KILL_TIMEOUT_MS,
  killRunFromUi,
  openActivity,
  releaseSelectedLease,
  rows,
  startRunFromUi,
} from '../support/ui';

test.describe('runs started from the UI', () => {
  test.afterEach(async ({ app }) => {
    await releaseSelectedLease(app);
  });

  test('start a run and watch its tree appear, nested by parent', async ({ app }) => {
    const card = await startRunFromUi(app, {
      command: 'node',
      args: [fixture('spawn-children.mjs'), '3', 'run-forever.mjs', 'child'],
      timeoutSeconds: 120,
      lease: 'e2e-tree',
    });
    await expect(rows(card)).toHaveCount(4);
    await expect(rows(card).first()).toHaveAttribute('aria-level', '1');
    await expect(card.locator('[role="treeitem"][aria-level="2"]')).toHaveCount(3);
    await expect(card.getByTestId('countdown')).toContainText('times out in');
    await expect(app.getByRole('option', { name: /e2e-tree/ })).toBeVisible();
  });

  test('kill it and see it gone, with its classification and kill timeline', async ({ app }) => {
    const card = await startRunFromUi(app, {
      command: 'node',
      args: [fixture('spawn-children.mjs'), '2', 'ignore-sigterm.mjs'],
      timeoutSeconds: 120,
      lease: 'e2e-kill',
    });
    await expect(rows(card)).toHaveCount(3);
    await expectFixtureReady(card, 'parent');
    await killRunFromUi(app, card);
    // The kill this UI asked for (its title names the command); the run's own end may report another.
    const outcome = (await openActivity(app)).locator('.outcome[data-kind="kill"]', {
      hasText: /ignore-sigterm\.mjs\): Killed \d+ process/,
    });
    await expect(outcome).toBeVisible({ timeout: KILL_TIMEOUT_MS });
    await expect(outcome.locator('.tl-action', { hasText: 'SIGTERM' })).toBeVisible();
    await expect(outcome.locator('.tl-action', { hasText: 'SIGKILL' })).toBeVisible();
    // The children ignore SIGTERM: the escalation freezes them (its own step, not a read) before SIGKILL.
    const actions = await outcome.locator('li.tl').evaluateAll((steps) => steps.map((step) => step.textContent ?? ''));
    const frozeAt = actions.findIndex((text) => text.includes('SIGSTOP'));
    expect(frozeAt, actions.join('\n')).toBeGreaterThan(-1);
    expect(frozeAt, actions.join('\n')).toBeLessThan(actions.findIndex((text) => text.includes('SIGKILL')));
    await outcome.screenshot({ path: join(TEST_SHOT_DIR, 'kill-timeline.png') });
    await expect(rows(card)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
    await expect(card.locator('.run-meta [data-classification]')).toBeVisible();
    await expect(card).toContainText('nothing of its tree is left');
  });

  test('a timeout fires on screen', async ({ app }) => {
    const card = await startRunFromUi(app, {
      command: 'node',
      args: [fixture('run-forever.mjs')],
      timeoutSeconds: 3,
      lease: 'e2e-timeout',
    });
    await expect(card.getByTestId('countdown')).toContainText(/times out in [1-3] s|timing out/);
    await expect(card.locator('.run-meta [data-classification="timeout"]')).toHaveText('timed out after 3 s');
    // An ended card offers nothing to kill.
    await expect(card.getByRole('button', { name: 'Kill tree' })).toHaveCount(0);
    await expect(rows(card)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
    await expect((await openActivity(app)).locator('.outcome[data-kind="runEnded"]').first()).toContainText('timeout');
  });

  test('a zombie is shown as one, with the parent that has not reaped it', async ({ app }) => {
    const card = await startRunFromUi(app, {
      command: 'sh',
      args: [fixture('zombie-parent.sh')],
      timeoutSeconds: 120,
      lease: 'e2e-zombie',
    });
    const zombie = card.locator('[role="treeitem"].zombie');
    await expect(zombie).toBeVisible();
    await expect(zombie.locator('.badge-zombie')).toHaveText('zombie');
    const parentPid = await rows(card).first().getAttribute('data-pid');
    await expect(zombie).toContainText(`not reaped by ${parentPid} (run root · sleep)`);
    await killRunFromUi(app, card);
    await expect(rows(card)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
  });

  test('retry an ended run, then release its lease', async ({ app }) => {
    const first = await startRunFromUi(app, {
      command: 'node',
      args: ['-e', 'process.exit(3)'],
      timeoutSeconds: 30,
      lease: 'e2e-retry',
    });
    const firstId = (await first.getAttribute('data-run-id')) as string;
    const ended = app.locator(`section.run[data-run-id="${firstId}"]`);
    await expect(ended.locator('.run-meta [data-classification="error"]')).toBeVisible();
    await expect(ended).toContainText('exit code 3');
    await ended.getByRole('button', { name: 'Retry' }).click();
    const activity = await openActivity(app);
    await expect(activity.locator('.outcome[data-kind="retry"]').first()).toContainText(`Retried ${firstId} as`);
    await expect(app.locator('section.run')).toHaveCount(2);
    await expect(app.locator('section.run.selected')).not.toHaveAttribute('data-run-id', firstId);
    // The retry's details find the first run in the ledger: same command line.
    await expect(app.locator('aside.details .mini-history')).toContainText(firstId);
    await releaseSelectedLease(app);
    await expect(activity.locator('.outcome[data-kind="release"]').first()).toContainText('Released lease e2e-retry');
    await expect(app.getByRole('option', { name: /e2e-retry/ })).toContainText('released');
  });
});
