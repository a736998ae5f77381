/**
 * Every view and every dialog, in both themes, through axe-core (WCAG 2.0/2.1/2.2 A and AA plus
 * best practices), with real processes behind them: a lease with live, killed, escaped and
 * zombie runs, a leaked run tree, a live agent session with a pile-up (the Trim dialog) and one
 * whose root was SIGKILLed (the agent clean-up list). Any serious or critical violation fails the
 * test, and every one found is printed with its nodes first, so one run shows them all.
 */

import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { TEST_SHOT_DIR } from '../support/env';
import { type FakeClaude, startFakeClaude } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { buildScene, type Scene } from '../support/scene';
import { rows } from '../support/ui';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'];
const BLOCKING = new Set(['serious', 'critical']);
/** New sessions are found on the observer's next tick (new pids each poll); a leak or alert by the judgement after it. */
const SESSION_TIMEOUT_MS = 60_000;
const LEAK_SCAN_TIMEOUT_MS = 60_000;

interface Finding {
  state: string;
  rule: string;
  impact: string;
  help: string;
  nodes: string[];
}

async function audit(page: Page, state: string, findings: Finding[]): Promise<void> {
  await page.mouse.move(0, 0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // The scheme is in force, and no transition or finite animation (theme colours, a dialog
    // fading in) is under way that axe would measure half-way.
    await page.waitForFunction(
      (dark) =>
        matchMedia('(prefers-color-scheme: dark)').matches === dark &&
        document
          .getAnimations()
          .every(
            (animation) =>
              animation.playState !== 'running' || animation.effect?.getComputedTiming().endTime === Infinity,
          ),
      scheme === 'dark',
    );
    // Every rule of TAGS, run in the page itself: the UI has no frames (checked), so axe's
    // per-frame mode would only add a blank page and a second injection per analysis.
    expect(page.frames(), 'axe runs in the one frame of the UI').toHaveLength(1);
    const result = await new AxeBuilder({ page }).withTags(TAGS).setLegacyMode().analyze();
    for (const violation of result.violations) {
      if (!BLOCKING.has(violation.impact ?? '')) continue;
      findings.push({
        state: `${state} (${scheme})`,
        rule: violation.id,
        impact: violation.impact ?? '',
        help: violation.help,
        nodes: violation.nodes.slice(0, 6).map((node) => `${node.target.join(' ')} — ${node.failureSummary ?? ''}`),
      });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

function report(findings: readonly Finding[]): string {
  return findings
    .map((f) => `[${f.impact}] ${f.rule} in ${f.state}: ${f.help}\n    ${f.nodes.join('\n    ')}`)
    .join('\n');
}

test.describe('accessibility', () => {
  test.skip(({ isElectron }) => isElectron, 'starts fake agents beside the serve host');
  let scene: Scene | null = null;
  const agents: FakeClaude[] = [];
  test.afterEach(async () => {
    for (const agent of agents.splice(0)) agent.stop();
    await scene?.tearDown();
    scene = null;
  });

  test('every view and dialog in both themes has no serious or critical axe violation', async ({ app }) => {
    test.setTimeout(420_000);
    const findings: Finding[] = [];
    const piles = await startFakeClaude({ mcpSets: 3 });
    agents.push(piles);
    const leaking = await startFakeClaude();
    agents.push(leaking);
    scene = await buildScene(app, 'axe-scene');

    await test.step('runs, kill dialog, new run form', async () => {
      await app.getByRole('tab', { name: 'Runs' }).click();
      const card = app.locator('section.run').first();
      await rows(card).first().click();
      await audit(app, 'Runs with details', findings);
      await app.keyboard.press('k');
      const kill = app.getByRole('dialog', { name: 'Confirm kill' });
      await expect(kill.getByTestId('kill-preview-count')).toBeVisible();
      await audit(app, 'kill dialog', findings);
      await kill.getByRole('button', { name: 'Cancel' }).click();
      await app.getByRole('button', { name: 'New run' }).click();
      const form = app.getByRole('dialog', { name: 'Start a run' });
      await expect(form).toBeVisible();
      await audit(app, 'new run dialog', findings);
      await form.getByRole('button', { name: 'Cancel' }).click();
      await expect(form).toBeHidden();
      await app.getByRole('button', { name: 'Export…' }).click();
      await expect(app.getByRole('form', { name: 'Metrics export' })).toBeVisible();
      await audit(app, 'export settings', findings);
      await app.getByRole('button', { name: 'Export…' }).click();
    });

    await test.step('sessions, trim and agent clean-up dialogs', async () => {
      const pilesDir = piles.dir.slice(piles.dir.lastIndexOf('/') + 1);
      const pilesOption = app.getByRole('option', { name: new RegExp(`claude-code · .*${pilesDir}`) });
      await expect(pilesOption.getByTestId('session-alert-badge')).toBeVisible({ timeout: SESSION_TIMEOUT_MS });
      const leakingDir = leaking.dir.slice(leaking.dir.lastIndexOf('/') + 1);
      const leakingOption = app.getByRole('option', { name: new RegExp(`claude-code · .*${leakingDir}`) });
      await expect(leakingOption).toBeVisible({ timeout: SESSION_TIMEOUT_MS });
      await pilesOption.dispatchEvent('mousedown');
      const view = app.getByTestId('session-view');
      await expect(view.getByTestId('session-alert')).toBeVisible();
      // The member list is a table a screen reader can walk by its column headers.
      const members = view.getByRole('table', { name: 'Session processes' });
      for (const header of ['PID', 'Role', 'Command', 'CPU trend', 'CPU', 'Memory'])
        await expect(members.getByRole('columnheader', { name: header, exact: true })).toBeVisible();
      await audit(app, 'Sessions with a pile-up', findings);
      await view.getByTestId('session-alert').getByRole('button', { name: 'Trim…' }).click();
      const trim = app.getByRole('dialog', { name: /^Trim \d+ processes/ });
      await expect(trim).toBeVisible();
      await audit(app, 'trim dialog', findings);
      await trim.getByRole('button', { name: 'Cancel' }).click();
      await expect(trim).toBeHidden();

      process.kill(leaking.rootPid, 'SIGKILL');
      await leakingOption.dispatchEvent('mousedown');
      const leaks = view.getByTestId('session-leaks');
      await expect(leaks).toContainText('outlived the session', { timeout: LEAK_SCAN_TIMEOUT_MS });
      await audit(app, 'Sessions with a leaked session', findings);
      await leaks.getByRole('button', { name: 'Clean up' }).click();
      const clean = app.getByRole('dialog');
      await expect(clean).toContainText('MCP server of claude-code');
      await audit(app, 'agent clean-up dialog', findings);
      // One compact row per target at 1024×700 (7 or more fit), each line whole once the list has the focus.
      await app.setViewportSize({ width: 1024, height: 700 });
      const lines = clean.locator('.confirm-lines li');
      const heights = await lines.evaluateAll((items) => items.map((item) => item.getBoundingClientRect().height));
      expect(heights.length).toBeGreaterThan(0);
      for (const height of heights) expect(height, 'one line per clean-up target').toBeLessThan(26);
      await app.screenshot({ path: join(TEST_SHOT_DIR, 'agent-clean-1024x700-light.png') });
      // From Cancel (focused on open), Shift+Tab reaches the list: from the keyboard every line shows whole.
      await expect(clean.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await app.keyboard.press('Shift+Tab');
      await expect(clean.locator('.confirm-lines')).toBeFocused();
      expect(await lines.first().evaluate((item) => item.getBoundingClientRect().height)).toBeGreaterThan(26);
      await app.setViewportSize({ width: 1440, height: 900 });
      await app.keyboard.press('Escape');
      await expect(clean).toBeHidden();
    });

    await test.step('all processes, inspector, run clean-up dialog', async () => {
      await app.getByRole('tab', { name: 'All processes' }).click();
      await expect(app.getByTestId('system-count')).toContainText(/[1-9]\d* processes/);
      const banner = app.getByTestId('orphan-banner');
      await expect(banner).toBeVisible({ timeout: LEAK_SCAN_TIMEOUT_MS });
      await audit(app, 'All processes', findings);
      await app.locator('.system-scroll [role="treeitem"]').nth(2).click();
      await expect(app.locator('.inspector')).toBeVisible();
      await audit(app, 'process inspector', findings);
      await app.keyboard.press('Escape');
      await banner.getByRole('button', { name: 'Clean up all' }).click();
      const clean = app.getByRole('dialog', { name: 'Confirm clean-up' });
      await expect(clean).toBeVisible();
      await audit(app, 'clean-up all dialog', findings);
      await clean.getByRole('button', { name: 'Cancel' }).click();
      await expect(clean).toBeHidden();
    });

    await test.step('scenarios, history, activity', async () => {
      await app.getByRole('tab', { name: 'Scenarios' }).click();
      await expect(app.locator('.scenario').first()).toBeVisible();
      await audit(app, 'Scenarios', findings);
      await app.getByRole('tab', { name: 'History' }).click();
      await expect(app.locator('.history tbody tr.history-row').first()).toBeVisible();
      await audit(app, 'History', findings);
      await app.getByRole('tab', { name: 'Runs' }).click();
      const activity = app.locator('section.activity');
      const folded = activity.getByRole('button', { name: /Activity/, expanded: false });
      if ((await folded.count()) > 0) await folded.click();
      await expect(activity).toHaveClass(/\bopen\b/);
      await audit(app, 'Activity open', findings);
    });

    if (findings.length > 0) console.log(report(findings));
    expect(report(findings), 'serious or critical axe violations').toBe('');
  });
});
