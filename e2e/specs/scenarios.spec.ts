import { expect, test } from '../support/fixtures';
import { KILL_TIMEOUT_MS, releaseSelectedLease } from '../support/ui';

test('a scenario runs from its card, explained, and ends with the expected classification', async ({ app }) => {
  await app.getByRole('tab', { name: 'Scenarios' }).click();
  const card = app.getByRole('article', { name: /ignores SIGTERM/ });
  await expect(card).toContainText('Naive tools');
  await expect(card).toContainText('Treewarden');
  const expected = (await card.locator('[data-classification]').getAttribute('data-classification')) as string;
  await card.getByRole('button', { name: 'Run scenario' }).click();
  const run = app.locator('section.run.selected');
  await expect(run).toBeVisible();
  await expect(run.locator(`.run-meta [data-classification="${expected}"]`)).toBeVisible({ timeout: KILL_TIMEOUT_MS });
  await expect(run.getByRole('treeitem')).toHaveCount(0);
  await releaseSelectedLease(app);
});
