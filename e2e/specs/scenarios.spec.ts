import { expect, test } from '../support/fixtures';
import { KILL_TIMEOUT_MS, releaseSelectedLease } from '../support/ui';

/** ignore-sigterm's timeout (packages/engine/src/scenarios/definitions/signals.ts) and the slow pace's factor. */
const IGNORE_SIGTERM_TIMEOUT_S = 2;
const SLOW_PACE_FACTOR = 5;

test('a scenario runs from its card, explained, and its card says the outcome matched Expected', async ({ app }) => {
  await app.getByRole('tab', { name: 'Scenarios' }).click();
  const card = app.getByRole('article', { name: /ignores SIGTERM/ });
  await expect(card).toContainText('Naive tools');
  await expect(card).toContainText('Treewarden');
  const expected = (await card.locator('[data-classification]').getAttribute('data-classification')) as string;
  await card.getByRole('button', { name: 'Run scenario' }).click();
  const run = app.locator('section.run.selected');
  await expect(run).toBeVisible();
  await expect(run.getByTestId('countdown')).toHaveAttribute('title', `Timeout ${IGNORE_SIGTERM_TIMEOUT_S} s`);
  await expect(run.locator(`.run-meta [data-classification="${expected}"]`)).toBeVisible({ timeout: KILL_TIMEOUT_MS });
  await expect(run.getByRole('treeitem')).toHaveCount(0);
  await app.getByRole('tab', { name: 'Scenarios' }).click();
  await expect(card.getByTestId('scenario-result')).toContainText('✓ matches Expected');
  await app.getByRole('tab', { name: 'Runs' }).click();
  await releaseSelectedLease(app);
});

test('a slow demo pace gives a timeout scenario five times the time, so a person can watch', async ({ app }) => {
  await app.getByRole('tab', { name: 'Scenarios' }).click();
  await app.getByRole('checkbox', { name: 'Slow demo pace' }).check();
  const card = app.getByRole('article', { name: /ignores SIGTERM/ });
  await expect(card).toContainText('×5 timeout');
  await card.getByRole('button', { name: 'Run scenario' }).click();
  const run = app.locator('section.run.selected');
  await expect(run.getByTestId('countdown')).toHaveAttribute(
    'title',
    `Timeout ${IGNORE_SIGTERM_TIMEOUT_S * SLOW_PACE_FACTOR} s`,
  );
  await expect(run.locator('.run-meta [data-classification="timeout"]')).toBeVisible({ timeout: KILL_TIMEOUT_MS });
  await releaseSelectedLease(app);
});

test('the naive way runs from the same card and stays on it, beside the Treewarden result', async ({ app }) => {
  await app.getByRole('tab', { name: 'Scenarios' }).click();
  const card = app.getByRole('article', { name: /ignores SIGTERM/ });
  await card.getByRole('button', { name: 'Run naive' }).click();
  await expect(card.getByTestId('scenario-naive-result')).toBeVisible();
  await expect(app.getByRole('tab', { name: 'Scenarios' })).toHaveAttribute('aria-selected', 'true');
  await expect(app.getByTestId('activity-latest')).toContainText(/Scenario ignore-sigterm \(naive\) started as/);
  // The naive demo ends by itself: the engine cleans up what the plain kill left.
  await expect(card.getByRole('button', { name: 'Run naive' })).toBeEnabled();
});
