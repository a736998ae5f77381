/** Steps the specs share: start a run through the form, find its card, kill through the dialog. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { FIXTURE_REPORT_ENV, FIXTURES_DIR } from './env';

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

/** How long a fixture may take to report ready after its row shows (node start-up under load). */
export const FIXTURE_READY_WAIT_MS = 30_000;

function reportedRoles(file: string, pid: number): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const roles: string[] = [];
  for (const line of text.split('\n')) {
    try {
      const report = JSON.parse(line) as { role?: unknown; pid?: unknown };
      if (report.pid === pid && typeof report.role === 'string') roles.push(report.role);
    } catch {
      // A line still being written, or blank.
    }
  }
  return roles;
}

/**
 * Waits until the card's root fixture reports `role`. A row shows as soon as its process exists,
 * before Node has run the fixture's handlers: a kill in that window ends an "ignores SIGTERM"
 * child on SIGTERM, and its timeline rightly shows no SIGKILL. spawn-children.mjs reports
 * "parent" only once every child reported, i.e. installed its handlers. Runs started from the UI
 * report to the file global-setup gave the host (FIXTURE_REPORT_ENV).
 */
export async function expectFixtureReady(card: Locator, role: string): Promise<void> {
  const file = process.env[FIXTURE_REPORT_ENV];
  if (file === undefined) throw new Error(`${FIXTURE_REPORT_ENV} is not set: global-setup gives it to the host`);
  const pid = Number(await card.locator('[role="treeitem"][aria-level="1"]').first().getAttribute('data-pid'));
  await expect
    .poll(() => reportedRoles(file, pid), { timeout: FIXTURE_READY_WAIT_MS, message: `pid ${pid} reports ${role}` })
    .toContain(role);
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
  // No lease selected (a test skipped before starting its run): nothing to release, and no wait.
  if ((await button.count()) === 0 || !(await button.isEnabled())) return;
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
