/**
 * A session's leftover container, end to end over the real `serve`, Chromium and a real Docker
 * Engine (started by the test when none runs: test-support/docker-engine.ts; the offline busybox
 * image; `--network none`): a fake Claude session's Bash tool runs `docker run -d`; the session
 * view names the container under the session; the agent is killed; the container, still running,
 * is the ended session's leftover; "Clean up" lists it in its confirmation and, once confirmed,
 * the engine reports it stopped (asked through the Docker API, not the UI), and Activity shows the
 * stop (also from the ledger after a reload). Skips with the reason where no engine can be had
 * locally; fails under CI=true (CI installs docker.io).
 */
import { docker, ensureTestImage, requireTestEngine } from '../../test-support/docker-engine.js';
import { type ContainerAgent, startContainerAgent } from '../support/container-agent';
import { expect, test } from '../support/fixtures';

/** New sessions are found on the observer's next tick (new pids each poll); a loaded machine takes longer. */
const SESSION_SEEN_TIMEOUT_MS = 60_000;
/** The create event is judged at once; the session's row carries it at the next poll. */
const CONTAINER_SHOWN_TIMEOUT_MS = 30_000;
const SESSION_END_TIMEOUT_MS = 30_000;
/** The stop's grace (10 s by default: busybox sleep ignores SIGTERM as pid 1) and the kill after it. */
const STOP_TIMEOUT_MS = 45_000;
/** dockerd's first start and the image import. */
const ENGINE_TIMEOUT_MS = 120_000;

test.describe('containers an agent session left', () => {
  test.skip(({ isElectron }) => isElectron, 'starts a fake agent and a container beside the serve host');
  let agent: ContainerAgent | null = null;
  test.afterEach(async () => {
    agent?.stop();
    await agent?.removeContainer();
    agent = null;
  });

  test("an ended session's container: shown under it, listed by Clean up, stopped through the engine, in Activity", async ({
    app,
  }) => {
    test.setTimeout(
      ENGINE_TIMEOUT_MS +
        SESSION_SEEN_TIMEOUT_MS +
        CONTAINER_SHOWN_TIMEOUT_MS * 2 +
        SESSION_END_TIMEOUT_MS +
        STOP_TIMEOUT_MS,
    );
    const engine = await requireTestEngine();
    test.skip('skip' in engine, `no Docker Engine: ${'skip' in engine ? engine.skip : ''}`);
    if (!('socketPath' in engine)) return;
    const socketPath = engine.socketPath;
    const image = await ensureTestImage(socketPath);
    const started = startContainerAgent(socketPath, image);
    agent = started;

    const dirName = started.dir.slice(started.dir.lastIndexOf('/') + 1);
    const option = app.getByRole('option', { name: new RegExp(`claude-code · .*${dirName}`) });
    await expect(option).toBeVisible({ timeout: SESSION_SEEN_TIMEOUT_MS });
    await option.dispatchEvent('mousedown');
    const view = app.getByTestId('session-view');
    await expect(view).toContainText(started.dir);

    // The session is known to the host, which follows the engine's events: now its Bash tool starts the database.
    const id = await started.startContainer();
    const state = () => docker(socketPath, ['inspect', '-f', '{{.State.Status}}', id]);
    expect(await state()).toBe('running');
    const shown = view.getByTestId('session-container');
    await expect(shown).toContainText(started.containerName, { timeout: CONTAINER_SHOWN_TIMEOUT_MS });
    await expect(shown).toHaveAttribute('data-strength', 'strong');
    await expect(shown).toContainText('running');

    process.kill(started.rootPid, 'SIGKILL');
    await expect(option).not.toContainText('live', { timeout: SESSION_END_TIMEOUT_MS });
    const leaks = view.getByTestId('session-leaks');
    await expect(leaks).toContainText('1 container outlived the session', { timeout: CONTAINER_SHOWN_TIMEOUT_MS });
    const leftover = leaks.getByTestId('leftover-container');
    await expect(leftover).toContainText(started.containerName);
    await expect(leftover).toContainText(id.slice(0, 12));
    // Killing the agent did not stop its container.
    expect(await state()).toBe('running');

    await leaks.getByRole('button', { name: 'Clean up' }).click();
    const dialog = app.getByRole('dialog', { name: 'Clean up 1 leftover container?' });
    await expect(dialog).toContainText(`container ${started.containerName} (${image}) ${id.slice(0, 12)}, strong`);
    expect(await state()).toBe('running');
    await dialog.getByRole('button', { name: 'Clean up' }).click();

    // Stopped, as the engine says, and kept (never removed).
    await expect.poll(state, { timeout: STOP_TIMEOUT_MS }).toBe('exited');
    await expect(app.getByTestId('activity-latest')).toContainText(
      'Container clean-up: stopped 1 of 1 leftover container',
      { timeout: STOP_TIMEOUT_MS },
    );
    await expect(view.getByTestId('session-leaks')).toHaveCount(0, { timeout: CONTAINER_SHOWN_TIMEOUT_MS });

    // The stop is in the ledger: after a reload, Activity restores it with the container and its session.
    const sessionId = await view.getAttribute('data-session-id');
    await app.reload();
    await expect(app.locator('.conn-open')).toBeVisible();
    const activity = app.getByRole('region', { name: 'Activity' });
    await activity.locator('.activity-toggle').click();
    const line = activity.locator('li.outcome', { hasText: `Container ${started.containerName} (${image})` });
    await expect(line).toContainText(`of session ${sessionId}: stopped`);
  });
});
