/**
 * Pile-ups inside a live agent session, end to end over `serve`: a fake Claude session that stays
 * live holds three sets of the same MCP server; beside it run a second live fake session and an
 * unrelated marker-less process named like the server. The host alerts the two older sets: the
 * session's sidebar row and card name the alert and the leak banner's neighbour does (the leak
 * banner never counts them). "Trim…" lists exactly the four alerted processes; after the
 * confirmation the dialog shows the host's answer per process, the older sets are gone by
 * identity, and the agent, its newest set, the other session and the unrelated process live on.
 * Pictures at 1440×900 and 1024×700 go to the ignored test-results folder; the layout checks hold.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { SCREENSHOT_DIR, TEST_SHOT_DIR } from '../support/env';
import { type FakeClaude, startFakeClaude, startTimeOf } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { clippedButtons } from '../support/layout-checks';

/** New sessions are found on the observer's next tick (new pids each poll); the alert by the judgement after it. */
const ALERT_SHOWN_TIMEOUT_MS = 60_000;
const TRIM_TIMEOUT_MS = 45_000;
const MCP_SETS = 3;
/** The unrelated process ends itself after this long even if every clean-up fails. */
const UNRELATED_LIFETIME_MS = 180_000;
const UNRELATED_LABEL = 'fake-mcp-server-dashboard';
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

interface Identity {
  readonly pid: number;
  readonly start: string;
}

async function shootBothSizes(app: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await app.setViewportSize(size);
    await app.mouse.move(0, 0);
    expect(await clippedButtons(app), `buttons of ${name} at ${size.width}×${size.height}`).toEqual([]);
    await app.screenshot({ path: join(TEST_SHOT_DIR, `${name}-${size.width}x${size.height}.png`) });
  }
  await app.setViewportSize(SIZES[0]);
}

function identityOf(pid: number): Identity {
  const start = startTimeOf(pid);
  if (start === null) throw new Error(`process ${pid} is already gone`);
  return { pid, start };
}

function alive(identity: Identity): boolean {
  return startTimeOf(identity.pid) === identity.start;
}

/** A marker-less process with the server's name in its argv: what `pkill -f fake-mcp-server` would also hit. */
function startUnrelated(): { identity: Identity; stop(): void } {
  const script = `setInterval(() => {}, 1000); setTimeout(() => process.exit(0), ${UNRELATED_LIFETIME_MS});`;
  const child = spawn(process.execPath, ['-e', script, UNRELATED_LABEL], { detached: true, stdio: 'ignore' });
  child.unref();
  const identity = identityOf(child.pid as number);
  return {
    identity,
    stop() {
      if (!alive(identity)) return;
      try {
        process.kill(identity.pid, 'SIGKILL');
      } catch {
        // ESRCH: it ended between the check and the signal
      }
    },
  };
}

/** The older sets (wrapper and its server), oldest first by the kernel's start time; the newest set is kept. */
function olderSets(piles: FakeClaude): { alerted: Identity[]; kept: Identity[] } {
  const wrappers = piles.reports
    .filter((report) => report.role === 'npx-wrapper')
    .map((report) => identityOf(report.pid))
    .sort((a, b) => (BigInt(a.start) < BigInt(b.start) ? -1 : 1));
  const serverOf = (wrapper: Identity) =>
    piles.reports
      .filter((report) => report.role === 'mcp-server' && report.ppid === wrapper.pid)
      .map((r) => identityOf(r.pid));
  const newest = wrappers.at(-1) as Identity;
  return {
    alerted: wrappers.slice(0, -1).flatMap((wrapper) => [wrapper, ...serverOf(wrapper)]),
    kept: [identityOf(piles.rootPid), newest, ...serverOf(newest)],
  };
}

test.describe('pile-ups inside a live session', () => {
  test.skip(({ isElectron }) => isElectron, 'starts fake agents beside the serve host');
  const stops: Array<() => void> = [];
  test.afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  test('duplicate MCP server sets: alerted on the card and beside the leak banner, trimmed after the confirmation, innocents alive', async ({
    app,
  }) => {
    test.setTimeout(ALERT_SHOWN_TIMEOUT_MS + TRIM_TIMEOUT_MS + 90_000);
    const piles = await startFakeClaude({ mcpSets: MCP_SETS });
    stops.push(piles.stop);
    const other = await startFakeClaude();
    stops.push(other.stop);
    const unrelated = startUnrelated();
    stops.push(unrelated.stop);
    const { alerted, kept } = olderSets(piles);
    const otherTree = [...other.tree].map(([pid, start]) => ({ pid, start }));

    const dirName = piles.dir.slice(piles.dir.lastIndexOf('/') + 1);
    const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
    await expect(option.getByTestId('session-alert-badge')).toHaveText('1 pile-up', {
      timeout: ALERT_SHOWN_TIMEOUT_MS,
    });
    await expect(option.getByTestId('session-alert-badge')).toHaveAttribute('title', 'duplicate MCP servers');
    const banner = app.getByTestId('alert-banner');
    await expect(app.getByTestId('alert-count')).toContainText(/pile-ups? in \d+ live agent sessions?\./);
    // The host sees every session on this shared machine: the banner names ours unless others' came first.
    const named = Number((await app.getByTestId('alert-count').textContent())?.split(' ')[0]);
    if (named <= 2)
      await expect(banner).toContainText(
        `duplicate MCP servers (${alerted.length} processes) in claude-code · ${piles.dir}`,
      );
    // Live pile-ups are not leaks: none of the alerted pids is in the leak banner.
    const leakBanner = app.getByTestId('orphan-banner');
    for (const { pid } of alerted) await expect(leakBanner.getByText(`pid ${pid} `)).toHaveCount(0);
    await option.dispatchEvent('mousedown');
    const card = app.getByTestId('session-view').getByTestId('session-alert');
    await expect(card).toContainText(`the newest (pid ${kept[1]?.pid}) is kept`);
    await shootBothSizes(app, 'alerts-card');

    await card.getByRole('button', { name: 'Trim…' }).click();
    const dialog = app.getByRole('dialog', { name: /^Trim 4 processes of duplicate MCP servers\?$/ });
    await expect(dialog).toBeVisible();
    const rows = dialog.getByTestId('trim-target');
    await expect(rows).toHaveCount(alerted.length);
    expect((await rows.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-pid'))))).sort()).toEqual(
      alerted.map(({ pid }) => pid).sort(),
    );
    await expect(rows.first()).toContainText('fake-mcp-server.mjs');
    await expect(app.locator(':focus')).toHaveText('Cancel');
    await shootBothSizes(app, 'alerts-trim-confirm');
    // `npm run screenshots` refreshes the README's picture of the Trim confirmation.
    if (SCREENSHOT_DIR !== TEST_SHOT_DIR) await app.screenshot({ path: join(SCREENSHOT_DIR, 'alerts-trim-light.png') });

    await dialog.getByRole('button', { name: 'Trim', exact: true }).click();
    const answer = app.getByRole('dialog', { name: /the host's answer$/ });
    await expect(answer.getByTestId('trim-summary')).toHaveText(
      `Trim: ended ${alerted.length} of ${alerted.length} processes`,
      {
        timeout: TRIM_TIMEOUT_MS,
      },
    );
    await expect(answer.getByTestId('trim-result')).toHaveText(Array(alerted.length).fill('ended'));
    await shootBothSizes(app, 'alerts-trim-done');
    await answer.getByRole('button', { name: 'Close' }).click();

    for (const identity of alerted) expect(alive(identity), `alerted ${identity.pid} ended`).toBe(false);
    for (const identity of kept) expect(alive(identity), `kept ${identity.pid} alive`).toBe(true);
    for (const identity of otherTree) expect(alive(identity), `other session's ${identity.pid} alive`).toBe(true);
    expect(alive(unrelated.identity), 'the unrelated process alive').toBe(true);
    await expect(option.getByTestId('session-alert-badge')).toHaveCount(0, { timeout: TRIM_TIMEOUT_MS });
    await expect(app.getByTestId('session-view').getByTestId('session-alerts')).toHaveCount(0);
  });
});
