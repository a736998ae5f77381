/** Steps the specs share: start a run through the form, find its card, kill through the dialog. */
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { FIXTURES_DIR } from './env';

export function fixture(name: string): string {
  return join(FIXTURES_DIR, name);
}

export interface RunForm {
  command: string;
  args: string[];
  timeoutSeconds: number;
  lease: string;
}

/** Fills "New run" and submits; returns the card of the new run (the UI selects it). */
export async function startRunFromUi(app: Page, form: RunForm): Promise<Locator> {
  await app.getByRole('button', { name: 'New run' }).click();
  const dialog = app.getByRole('dialog', { name: 'Start a run' });
  await dialog.locator('input[name="command"]').fill(form.command);
  await dialog.locator('textarea[name="args"]').fill(form.args.join('\n'));
  await dialog.locator('input[name="timeout"]').fill(String(form.timeoutSeconds));
  await dialog.locator('input[name="lease"]').fill(form.lease);
  await dialog.getByRole('button', { name: 'Start run' }).click();
  await expect(dialog).toBeHidden();
  const card = app.locator('section.run.selected');
  await expect(card).toBeVisible();
  return card;
}

export function rows(card: Locator): Locator {
  return card.getByRole('treeitem');
}

/** Clicks "Kill tree" on a run card and confirms. */
export async function killRunFromUi(app: Page, card: Locator): Promise<void> {
  await card.getByRole('button', { name: 'Kill tree' }).click();
  const dialog = app.getByRole('dialog', { name: 'Confirm kill' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /^Kill (tree|subtree)$/ }).click();
  await expect(dialog).toBeHidden();
}

/** Releases the selected lease, confirming the list of runs it ends when it asks. */
export async function releaseSelectedLease(app: Page): Promise<void> {
  const button = app.getByRole('button', { name: 'Release lease' });
  if (!(await button.isEnabled())) return;
  await button.click();
  const confirm = app.getByRole('button', { name: /^Release and end \d+ runs?$/ });
  if (await confirm.isVisible()) await confirm.click();
}

/** A tree kill waits a grace period, escalates and verifies; on a loaded machine that takes a while. */
export const KILL_TIMEOUT_MS = 45_000;

/** Activity starts folded to one line; opens it (once) and returns the panel to look inside. */
export async function openActivity(app: Page): Promise<Locator> {
  const panel = app.locator('section.activity');
  await expect(panel).toBeVisible();
  const folded = panel.getByRole('button', { name: /Activity/, expanded: false });
  if ((await folded.count()) > 0) await folded.click();
  await expect(panel).toHaveClass(/\bopen\b/);
  return panel;
}

/** Confirms the clean-up dialog that "Clean up all" and a run's "leaked · clean" open. */
export async function confirmCleanUp(app: Page): Promise<void> {
  const dialog = app.getByRole('dialog', { name: 'Confirm clean-up' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Clean up' }).click();
  await expect(dialog).toBeHidden();
}
