/**
 * The first-use findings of a new user, replayed on a serve of their own with real processes: a
 * live lease, a run leaked by a SIGKILLed holder and guardian, a newer finished lease, and an
 * agent session whose root was SIGKILLed with its members alive. The first screen opens on the
 * leaking lease (not the newest, dead one), and the CLI run's details say where its output went;
 * All processes marks the leaked process and opens its inspector on a click and on a
 * double-click; History calls the leaked run "leaked", not "running"; and "Clean up all" lists
 * the run's and the session's leftovers alike and ends them all, after which every count says 0.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type CliRun, killQuietly, startCliRun } from '../support/cli-run';
import { CLI_MAIN, REPO_ROOT } from '../support/env';
import { type FakeClaude, startFakeClaude } from '../support/fake-agent';
import { expect, test } from '../support/fixtures';
import { isAlive, type ServeHandle, startServe } from '../support/serve';
import { fixture, KILL_TIMEOUT_MS } from '../support/ui';

const SCREENSHOTS = join(REPO_ROOT, 'e2e', 'test-results', 'first-use');
/** New agent sessions are found by the observer's next full scan. */
const SESSION_SEEN_TIMEOUT_MS = 60_000;
const LEAK_SHOWN_TIMEOUT_MS = 30_000;

test.describe('a first-time user', () => {
  test.skip(({ isElectron }) => isElectron, 'starts its own serve and drives the CLI against its state dir');
  let serve: ServeHandle | null = null;
  const runs: CliRun[] = [];
  let agent: FakeClaude | null = null;
  test.afterEach(async () => {
    agent?.stop();
    agent = null;
    for (const run of runs.splice(0)) run.cleanup();
    await serve?.stop();
    serve = null;
  });

  test('is shown what leaked first, marked everywhere, and "Clean up all" ends all of it', async ({ page }) => {
    test.setTimeout(SESSION_SEEN_TIMEOUT_MS + LEAK_SHOWN_TIMEOUT_MS + 2 * KILL_TIMEOUT_MS + 60_000);
    serve = await startServe();
    const home = serve.home;
    const stamp = Date.now().toString(36);
    const live = await startCliRun(`live-${stamp}`, 300, [process.execPath, fixture('run-forever.mjs')], home);
    runs.push(live);
    const leaky = await startCliRun(`leaky-${stamp}`, 300, [process.execPath, fixture('run-forever.mjs')], home);
    runs.push(leaky);
    // Guardian first, so it cannot see its holder die and end the run itself.
    killQuietly(leaky.guardianPid);
    killQuietly(leaky.holderPid);
    // The newest lease: a finished run with nothing left alive.
    const finished = spawnSync(
      process.execPath,
      [CLI_MAIN, 'run', '--lease', `done-${stamp}`, '--timeout', '30', '--', 'true'],
      { cwd: REPO_ROOT, env: { ...process.env, TREEWARDEN_HOME: home }, encoding: 'utf8' },
    );
    expect(finished.status, finished.stderr).toBe(0);
    const claude = await startFakeClaude();
    agent = claude;

    await page.goto(serve.url);
    await expect(page.locator('.conn-open')).toBeVisible();
    const sessionOption = page.getByRole('option', {
      name: new RegExp(`claude-code · .*${claude.dir.split('/').pop()}`),
    });
    await expect(sessionOption).toBeVisible({ timeout: SESSION_SEEN_TIMEOUT_MS });
    process.kill(claude.rootPid, 'SIGKILL');
    const banner = page.getByTestId('orphan-banner');
    await expect(banner).toContainText('agent session', { timeout: LEAK_SHOWN_TIMEOUT_MS });
    await expect(banner).toContainText('1 run');

    await test.step('the first screen opens on the leaking lease, not the newest dead one', async () => {
      await page.reload();
      await expect(page.locator('.conn-open')).toBeVisible();
      await expect(page.getByRole('tab', { name: 'Runs', exact: true })).toHaveAttribute('aria-selected', 'true');
      await expect(page.locator('.lease-list').getByRole('option', { selected: true })).toContainText(`leaky-${stamp}`);
      const card = page.locator(`section.run[data-run-id="${leaky.runId}"]`);
      await expect(card).toContainText('unsupervised');
      await page.screenshot({ path: join(SCREENSHOTS, 'first-screen.png') });
      // Its output went to the terminal of `treewarden run`, not here: the details say so.
      await card.getByRole('treeitem').first().click();
      await expect(page.getByTestId('details-output-elsewhere')).toContainText('Not captured here');
      // The card and the details header agree: unsupervised, never "running".
      await expect(page.getByTestId('run-unsupervised')).toHaveCount(2);
      await page.screenshot({ path: join(SCREENSHOTS, 'cli-run-details.png') });
    });

    await test.step('All processes marks the leaked process; a click and a double-click open it', async () => {
      await page.getByRole('tab', { name: 'All processes' }).click();
      await page.getByRole('searchbox', { name: 'Search processes' }).fill(String(leaky.rootPid));
      const row = page.locator(`[role="treeitem"][data-pid="${leaky.rootPid}"]`);
      await expect(row.getByTestId('leaked-mark')).toContainText('leaked');
      const inspector = page.locator('section.inspector');
      await row.click();
      await expect(inspector).toBeVisible();
      await expect(inspector).toContainText(String(leaky.rootPid));
      await page.keyboard.press('Escape');
      await expect(inspector).toBeHidden();
      await row.dblclick();
      await expect(inspector).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOTS, 'all-processes-leaked.png') });
      await inspector.getByRole('button', { name: 'Close' }).click();
      await expect(inspector).toBeHidden();
    });

    await test.step('History calls the leaked run leaked and the supervised one running', async () => {
      await page.getByRole('tab', { name: 'History' }).click();
      const statusOf = (runId: string) =>
        page.locator('tr').filter({ hasText: runId }).getByTestId('history-open-status');
      await expect(statusOf(leaky.runId)).toHaveText('leaked');
      await expect(statusOf(live.runId)).toHaveText('running');
    });

    await test.step('"Clean up all" lists the run and the session alike, and ends them all', async () => {
      const dying = [...claude.tree.keys()].filter((pid) => pid !== claude.rootPid && isAlive(pid));
      expect(dying.length).toBeGreaterThan(0);
      await banner.getByRole('button', { name: 'Clean up all' }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm clean-up' });
      const targets = dialog.getByTestId('clean-targets');
      await expect(targets).toContainText(`pid ${leaky.rootPid}`);
      // The lease as the user named it, not only its id.
      await expect(targets).toContainText(`lease leaky-${stamp} (${leaky.leaseId})`);
      for (const pid of dying) await expect(targets).toContainText(`pid ${pid}`);
      await page.screenshot({ path: join(SCREENSHOTS, 'clean-up-all.png') });
      await dialog.getByRole('button', { name: 'Clean up' }).click();
      await expect(dialog).toBeHidden();
      await expect.poll(() => claude.aliveCount(), { timeout: KILL_TIMEOUT_MS }).toBe(0);
      await expect.poll(() => isAlive(leaky.rootPid), { timeout: KILL_TIMEOUT_MS }).toBe(false);
      await expect(banner).toBeHidden({ timeout: KILL_TIMEOUT_MS });
      await expect(page.getByTestId('counts')).toContainText('0 leaked');
      // The live lease was never part of it.
      expect(isAlive(live.rootPid)).toBe(true);
    });
  });
});
