/**
 * A realistic scene for screenshots and layout checks: one lease with a zombie, an escaped
 * descendant, a killed tree and a live tree, plus a leaked tree the host must find.
 */
import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { type PlantedLeak, plantLeakedTree } from './leak';
import {
  expectFixtureReady,
  fixture,
  KILL_TIMEOUT_MS,
  killRunFromUi,
  releaseSelectedLease,
  rows,
  startRunFromUi,
} from './ui';

/** The host reads the owned trees' ports every PORT_READ_INTERVAL_MS (2 s); a loaded machine is slower. */
export const PORT_WAIT_MS = 30_000;

export interface Scene {
  lease: string;
  leak: PlantedLeak;
  /** Ends everything the scene started: the leaked tree by its pid, the lease through the UI. */
  tearDown(): Promise<void>;
}

export async function buildScene(app: Page, lease: string): Promise<Scene> {
  const zombieCard = await startRunFromUi(app, {
    command: 'sh',
    args: [fixture('zombie-parent.sh')],
    timeoutSeconds: 900,
    lease,
  });
  await expect(zombieCard.locator('.badge-zombie')).toBeVisible();
  const killed = await startRunFromUi(app, {
    command: 'node',
    args: [fixture('spawn-children.mjs'), '2', 'ignore-sigterm.mjs'],
    timeoutSeconds: 600,
    lease,
  });
  await expect(rows(killed)).toHaveCount(3);
  await expectFixtureReady(killed, 'parent');
  await killRunFromUi(app, killed);
  await expect(rows(killed)).toHaveCount(0, { timeout: KILL_TIMEOUT_MS });
  await startRunFromUi(app, { command: 'node', args: [fixture('setsid-escape.mjs')], timeoutSeconds: 300, lease });
  // A server: its ports show as chips on its card and in the details' Listening line.
  const server = await startRunFromUi(app, {
    command: 'node',
    args: [fixture('port-server.mjs')],
    timeoutSeconds: 900,
    lease,
  });
  await expect(server.getByTestId('port-chips')).toBeVisible({ timeout: PORT_WAIT_MS });
  const tree = await startRunFromUi(app, {
    command: 'node',
    args: [fixture('spawn-children.mjs'), '4', 'run-forever.mjs', 'worker'],
    timeoutSeconds: 120,
    lease,
  });
  await expect(rows(tree)).toHaveCount(5);
  await expect(app.locator('.marker-escaped').first()).toBeVisible();
  const leak = await plantLeakedTree();
  return {
    lease,
    leak,
    async tearDown() {
      leak.remove();
      await app.getByRole('tab', { name: 'Runs' }).click();
      await app
        .getByRole('option', { name: new RegExp(lease) })
        .first()
        .click();
      await releaseSelectedLease(app);
    },
  };
}
