/**
 * Agent sessions in the UI, end to end over `serve`: a fake Claude session started the usual way
 * shows in the sidebar and the Sessions view with its roles; after its root is SIGKILLed the
 * members it leaked are in the banner with their evidence; "Clean up" lists what it will signal,
 * and after the confirmation nothing of the session survives. A session with a busy worker gets
 * CPU and memory curves in its sidebar row and a chart in its view, which say "at its end" once
 * nothing of it is alive. Pictures of the sessions view, its curves and the leak banner at
 * 1440×900 and 1024×700 go to the ignored test-results folder; the layout checks hold on both.
 */
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { SCREENSHOT_DIR, TEST_SHOT_DIR } from '../support/env';
import { type FakeClaude, startFakeClaude } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { clippedButtons } from '../support/layout-checks';

/** New sessions are found on the observer's next tick (new pids each poll); the dev server's port by the next one. */
const SESSION_SEEN_TIMEOUT_MS = 60_000;
/** The detection target is 2 s; the bound here also covers a loaded machine's slow browser. */
const LEAK_SHOWN_TIMEOUT_MS = 30_000;
const CLEAN_TIMEOUT_MS = 45_000;
/** A curve worth looking at: this many snapshots (one per poll) after the session was seen. */
const CURVE_POINTS = 8;
const CURVE_TIMEOUT_MS = 60_000;
/** The busy worker spins a quarter of a core; even starved on a loaded machine it shows this much. */
const BUSY_CPU_PERCENT = 3;
/** The host notices the root is gone at its next poll; the bound covers a loaded machine. */
const SESSION_END_TIMEOUT_MS = 30_000;
/** An SVG path of at least two points: `M x,y L x,y …`. */
const DRAWN_PATH = /^M[\d.]+,[\d.]+( L[\d.]+,[\d.]+)+$/;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;
const ROLES = ['root', 'mcp-server', 'shell', 'dev-server', 'subagent'];

async function shootBothSizes(app: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await app.setViewportSize(size);
    await app.mouse.move(0, 0);
    expect(await clippedButtons(app), `buttons of ${name} at ${size.width}×${size.height}`).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await app.emulateMedia({ colorScheme: scheme });
      await app.screenshot({ path: join(TEST_SHOT_DIR, `${name}-${size.width}x${size.height}-${scheme}.png`) });
    }
    await app.emulateMedia({ colorScheme: 'light' });
  }
  await app.setViewportSize(SIZES[0]);
}

/** Points of the curve an SVG path draws (0 when empty). */
async function pointsOf(curve: Locator): Promise<number> {
  const path = (await curve.locator('path').getAttribute('d')) ?? '';
  return path.match(/[ML]/g)?.length ?? 0;
}

/** The CPU % a curve's aria-label names ("CPU 12.5 %, rising …"), or -1. */
async function cpuLabelled(curve: Locator): Promise<number> {
  const match = /^CPU ([\d.]+) %/.exec((await curve.getAttribute('aria-label')) ?? '');
  return match ? Number(match[1]) : -1;
}

test.describe('agent sessions', () => {
  test.skip(({ isElectron }) => isElectron, 'starts a fake agent beside the serve host');
  let agent: FakeClaude | null = null;
  test.afterEach(() => {
    agent?.stop();
    agent = null;
  });

  test('a fake Claude session: seen with roles, its leak in the banner with evidence, cleaned after the confirmation', async ({
    app,
  }) => {
    test.setTimeout(SESSION_SEEN_TIMEOUT_MS + LEAK_SHOWN_TIMEOUT_MS + CLEAN_TIMEOUT_MS + 60_000);
    agent = await startFakeClaude();
    const dirName = agent.dir.slice(agent.dir.lastIndexOf('/') + 1);
    const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
    await expect(option).toBeVisible({ timeout: SESSION_SEEN_TIMEOUT_MS });
    await expect(option).toContainText('live');
    await option.dispatchEvent('mousedown');
    const view = app.getByTestId('session-view');
    for (const role of ROLES)
      await expect(view.locator(`[data-testid="session-proc"][data-role="${role}"]`).first()).toBeVisible({
        timeout: SESSION_SEEN_TIMEOUT_MS,
      });
    await expect(view.getByTestId('session-totals')).toContainText('memory');
    await expect(view).toContainText(agent.dir);
    await shootBothSizes(app, 'sessions-view');

    const killedAt = Date.now();
    process.kill(agent.rootPid, 'SIGKILL');
    const banner = app.getByTestId('orphan-banner');
    await expect(banner).toContainText('agent session', { timeout: LEAK_SHOWN_TIMEOUT_MS });
    test.info().annotations.push({ type: 'agent leak on screen after', description: `${Date.now() - killedAt} ms` });
    await expect(banner).toContainText(`root ${agent.rootPid}`);
    await expect(banner).toContainText('is gone');
    const leaks = view.getByTestId('session-leaks');
    await expect(leaks).toContainText('outlived the session');
    await expect(leaks).toContainText('remembered as mcp-server');
    await expect(option).toContainText('leaked');
    await shootBothSizes(app, 'sessions-leak-banner');
    // `npm run screenshots` refreshes the README's picture of a leaked session.
    if (SCREENSHOT_DIR !== TEST_SHOT_DIR)
      await app.screenshot({ path: join(SCREENSHOT_DIR, 'sessions-leak-light.png') });

    await leaks.getByRole('button', { name: 'Clean up' }).click();
    const dialog = app.getByRole('dialog');
    await expect(dialog).toContainText('MCP server of claude-code');
    await shootBothSizes(app, 'sessions-clean-confirm');
    await dialog.getByRole('button', { name: 'Clean up' }).click();
    await expect.poll(() => agent?.aliveCount(), { timeout: CLEAN_TIMEOUT_MS }).toBe(0);
    await expect(view.getByTestId('session-leaks')).toHaveCount(0, { timeout: CLEAN_TIMEOUT_MS });
  });

  test('a busy session: CPU and memory curves in its row and its chart, labelled "at its end" once it ended', async ({
    app,
  }) => {
    test.setTimeout(SESSION_SEEN_TIMEOUT_MS + CURVE_TIMEOUT_MS + SESSION_END_TIMEOUT_MS + 60_000);
    const busy = await startFakeClaude({ busy: true });
    agent = busy;
    const dirName = busy.dir.slice(busy.dir.lastIndexOf('/') + 1);
    const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
    await expect(option).toBeVisible({ timeout: SESSION_SEEN_TIMEOUT_MS });
    await option.dispatchEvent('mousedown');
    const view = app.getByTestId('session-view');
    await expect(view.locator('[data-testid="session-proc"][data-role="other"]').first()).toContainText(
      'busy-worker.mjs',
      { timeout: SESSION_SEEN_TIMEOUT_MS },
    );
    const chart = view.getByTestId('session-chart');
    const chartCpu = chart.getByTestId('chart-cpu');
    await expect.poll(() => pointsOf(chartCpu), { timeout: CURVE_TIMEOUT_MS }).toBeGreaterThanOrEqual(CURVE_POINTS);
    await expect(chart.getByTestId('chart-memory').locator('path')).toHaveAttribute('d', DRAWN_PATH);
    await expect(chart.getByTestId('chart-memory')).toHaveAttribute('aria-label', /^Memory [\d.]+ (MiB|GiB)/);
    // The worker's CPU is in the session's sum.
    await expect
      .poll(() => cpuLabelled(chartCpu), { timeout: CURVE_TIMEOUT_MS })
      .toBeGreaterThanOrEqual(BUSY_CPU_PERCENT);
    await expect(chart).toContainText('now');
    // The worker's own row draws its own CPU curve.
    const workerRow = view.locator('[data-testid="session-proc"][data-role="other"]', { hasText: 'busy-worker.mjs' });
    await expect(workerRow.locator('svg.row-spark path')).toHaveAttribute('d', DRAWN_PATH);
    const sparks = option.getByTestId('session-sparks');
    for (const kind of ['cpu', 'memory']) {
      await expect(sparks.getByTestId(`session-spark-${kind}`).locator('path')).toHaveAttribute('d', DRAWN_PATH);
      await expect(sparks.getByTestId(`session-spark-${kind}`)).toHaveAttribute('aria-label', /over the last/);
    }
    await shootBothSizes(app, 'sessions-curves');
    // `npm run screenshots` refreshes the README's picture of a live session and its curves.
    if (SCREENSHOT_DIR !== TEST_SHOT_DIR) await app.screenshot({ path: join(SCREENSHOT_DIR, 'sessions-light.png') });

    busy.stop();
    await expect(chart).toContainText('until it ended', { timeout: SESSION_END_TIMEOUT_MS });
    await expect(chartCpu).toHaveAttribute('aria-label', /^CPU [\d.]+ % at its end, .* over its last/);
    await expect(chartCpu.locator('path')).toHaveAttribute('d', DRAWN_PATH);
    await expect(chart).not.toContainText('now');
    await shootBothSizes(app, 'sessions-curves-ended');
  });
});
