import type { WebSocketRoute } from '@playwright/test';
import { URL_ENV } from '../support/env';
import { expect, test } from '../support/fixtures';
import { plantLeakedTree } from '../support/leak';
import { isAlive } from '../support/serve';
import {
  confirmCleanUp,
  fixture,
  KILL_TIMEOUT_MS,
  killRunFromUi,
  openActivity,
  releaseSelectedLease,
  rows,
  startRunFromUi,
} from '../support/ui';

const STALE_LEASE = 'e2e-stale';

/**
 * Makes this page see an older identity for every process of the STALE_LEASE runs, as if the
 * rows were drawn before the pids were reused: the host must refuse the kill, not "fix" it.
 */
function ageIdentities(frame: string | Buffer): string | Buffer {
  if (typeof frame !== 'string') return frame;
  const message = JSON.parse(frame);
  if (message.kind !== 'event' || message.event.type !== 'snapshot') return frame;
  for (const lease of message.event.snapshot.leases) {
    if (lease.name !== STALE_LEASE) continue;
    for (const run of lease.runs) {
      for (const process of run.processes) process.startTime = `1${process.startTime}`;
      if (run.root) run.root.startTime = `1${run.root.startTime}`;
    }
  }
  return JSON.stringify(message);
}

function forwardWithStaleRows(ws: WebSocketRoute): void {
  const server = ws.connectToServer();
  ws.onMessage((frame) => server.send(frame));
  server.onMessage((frame) => ws.send(ageIdentities(frame)));
}

test.describe('safety', () => {
  test('a leaked tree raises a warning that cannot be missed, and one click cleans it', async ({ app }) => {
    const leak = await plantLeakedTree();
    try {
      // The host scans for leaks every few seconds while the system view is open (else once a minute).
      await app.getByRole('tab', { name: 'All processes' }).click();
      const banner = app.getByTestId('orphan-banner');
      await expect(banner).toBeVisible();
      await expect(banner).toContainText(/leaked process(es)? from \d+ runs? still alive/);
      await expect(banner).toContainText(`pid ${leak.pid}`);
      await expect(banner).toContainText(leak.runId);
      await expect(app.getByTestId('counts')).toContainText(/[1-9]\d* leaked/);
      await banner.getByRole('button', { name: 'Clean up all' }).click();
      await confirmCleanUp(app);
      await expect(banner).toBeHidden({ timeout: KILL_TIMEOUT_MS });
      await expect((await openActivity(app)).locator('.outcome[data-kind="clean"]').first()).toContainText(
        /Cleaned \d+ of \d+ leaked tree/,
      );
      await expect(app.getByTestId('counts')).toContainText('0 leaked');
      await expect.poll(() => isAlive(leak.pid)).toBe(false);
    } finally {
      leak.remove();
    }
  });

  test('a kill naming a stale identity is refused with a clear message', async ({ page, isElectron }) => {
    test.skip(isElectron, 'rewrites the WebSocket frames of `serve`');
    await page.routeWebSocket(/\/ws/, forwardWithStaleRows);
    await page.goto(process.env[URL_ENV] as string);
    const card = await startRunFromUi(page, {
      command: 'node',
      args: [fixture('run-forever.mjs')],
      timeoutSeconds: 120,
      lease: STALE_LEASE,
    });
    await expect(rows(card)).toHaveCount(1);
    await killRunFromUi(page, card);
    const refused = (await openActivity(page)).locator('.outcome-refused').first();
    await expect(refused).toContainText(/refused/i, { timeout: KILL_TIMEOUT_MS });
    await expect(refused).toContainText(/nothing was signalled/i);
    // The real process is untouched: the row is still there a poll later.
    await page.waitForTimeout(1500);
    await expect(rows(card)).toHaveCount(1);
    await releaseSelectedLease(page);
    await expect(rows(card)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
  });

  test('a bad token is rejected, for the page and for the socket', async ({ app, isElectron, request }) => {
    test.skip(isElectron, 'tokens belong to `serve`');
    const good = new URL(process.env[URL_ENV] as string);
    const bad = new URL(good);
    bad.searchParams.set('token', 'not-the-token');
    const page = await request.get(bad.toString());
    expect(page.status()).toBe(401);
    const opened = await app.evaluate(async (url) => {
      const socket = new WebSocket(url);
      return new Promise<boolean>((resolve) => {
        socket.onopen = () => resolve(true);
        socket.onclose = () => resolve(false);
      });
    }, `ws://${bad.host}/ws?token=not-the-token`);
    expect(opened).toBe(false);
  });

  test('the UI says what to do when its token is wrong', async ({ page, isElectron }) => {
    test.skip(isElectron, 'tokens belong to `serve`');
    const good = new URL(process.env[URL_ENV] as string);
    // Load the real page, then let it reconnect with a bad token (as after a serve restart).
    await page.routeWebSocket(/\/ws/, (ws) => ws.close({ code: 1008, reason: 'wrong token' }));
    await page.goto(good.toString());
    await expect(page.getByTestId('connection-notice')).toContainText('wrong token');
    await expect(page.locator('.conn-closed, .conn-connecting')).toBeVisible();
  });
});
