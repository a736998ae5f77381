/**
 * Boots the built main process (dist/main.js, what Electron runs) in this Node against the
 * recording Electron stand-in. The real engine host is created; the test only watches it: how
 * many commands reached it and how often it was closed.
 */
import { fileURLToPath } from 'node:url';
import type { EngineHost } from '@treewarden/host';
import { vi } from 'vitest';
import { pollUntil } from '../../../../test-support/index.js';
import { type ElectronStandIn, recordedEvent } from './electron-stand-in.js';

export const DESKTOP_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The host's close (poller stop, runs ended) on a loaded machine. */
export const CLOSE_WAIT_MS = 20_000;

export interface WatchedHost {
  /** Commands that reached the host's `handle`, as received. */
  readonly handled: unknown[];
  closes: number;
  /** Snapshot events the host has sent (to every listener, the app's own included). */
  snapshots: number;
}

type HostModule = typeof import('@treewarden/host');

export async function loadMain(standIn: ElectronStandIn): Promise<WatchedHost[]> {
  const hosts: WatchedHost[] = [];
  vi.resetModules();
  vi.doMock('electron', () => standIn.module);
  vi.doMock('@treewarden/host', async (importOriginal) => {
    const real = await importOriginal<HostModule>();
    const createEngineHost: HostModule['createEngineHost'] = (options) => {
      const host = real.createEngineHost(options);
      const watched: WatchedHost = { handled: [], closes: 0, snapshots: 0 };
      hosts.push(watched);
      host.onEvent((event) => {
        if (event.type === 'snapshot') watched.snapshots += 1;
      });
      const wrapped: EngineHost = {
        ...host,
        reader: host.reader,
        handle: (command, clientId) => {
          watched.handled.push(command);
          return host.handle(command, clientId);
        },
        onEvent: (listener) => host.onEvent(listener),
        dropClient: (clientId) => host.dropClient(clientId),
        pollNow: () => host.pollNow(),
        close: () => {
          watched.closes += 1;
          return host.close();
        },
      };
      return wrapped;
    };
    return { ...real, createEngineHost };
  });
  await import('../../dist/main.js');
  return hosts;
}

export function unloadMain(): void {
  vi.doUnmock('electron');
  vi.doUnmock('@treewarden/host');
}

/** Closes every open window (as the user would) and waits for the app's exit 0. */
export async function closeApp(standIn: ElectronStandIn): Promise<void> {
  for (const window of standIn.openWindows()) window.close();
  await pollUntil(() => standIn.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
}

/** Quits as the app menu's Quit does (any platform, with or without a window); waits for exit 0. */
export async function quitApp(standIn: ElectronStandIn): Promise<void> {
  if (!standIn.calls.includes('exit 0')) standIn.app.emit('before-quit', recordedEvent());
  await pollUntil(() => standIn.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
}
