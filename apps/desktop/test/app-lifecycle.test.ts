/**
 * The main process's life cycle against a recording stand-in for Electron's `app`: a failed start
 * shows the error, gives the lock up and exits non-zero; a quit gives the lock up at once, before
 * the (slow) host close ends, and never focuses a window that is going away. Closing the last
 * window quits except on macOS, where the dock's `activate` brings a window back.
 */
import { describe, expect, it } from 'vitest';
import {
  type AppControl,
  type LifecycleEvent,
  type LifecycleHooks,
  runLifecycle,
  START_FAILED_EXIT_CODE,
  START_FAILED_TITLE,
  type StartedApp,
} from '../src/node/app-lifecycle.js';

type Listener = (event: LifecycleEvent) => void;

function recordingApp(gotLock = true) {
  const calls: string[] = [];
  const listeners = new Map<string, Listener>();
  let ready: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const app: AppControl = {
    requestSingleInstanceLock: () => {
      calls.push('requestLock');
      return gotLock;
    },
    releaseSingleInstanceLock: () => calls.push('releaseLock'),
    whenReady: () => readyPromise,
    on: (event, listener) => listeners.set(event, listener),
    quit: () => calls.push('quit'),
    exit: (code) => calls.push(`exit ${code}`),
  };
  const emit = (event: string): { prevented: boolean } => {
    const result = { prevented: false };
    listeners.get(event)?.({ preventDefault: () => (result.prevented = true) });
    return result;
  };
  return { app, calls, emit, ready };
}

function recordingHooks(calls: string[], start: LifecycleHooks['start']): LifecycleHooks {
  return {
    harden: () => calls.push('harden'),
    start,
    handedOver: () => calls.push('handedOver'),
    showError: (title, content) => calls.push(`showError ${title}: ${content}`),
  };
}

/** Lets queued promise callbacks run (the life cycle chains a few). */
async function settle(): Promise<void> {
  for (let round = 0; round < 10; round += 1) await Promise.resolve();
}

describe('app life cycle', () => {
  it('hands over to a running app without hardening or starting anything', async () => {
    const { app, calls, ready } = recordingApp(false);
    runLifecycle(
      app,
      recordingHooks(calls, () => {
        throw new Error('must not start');
      }),
      'linux',
    );
    ready();
    await settle();
    expect(calls).toEqual(['requestLock', 'handedOver', 'quit']);
  });

  it('a start that throws shows the error, releases the lock and exits non-zero', async () => {
    const { app, calls, ready } = recordingApp();
    runLifecycle(
      app,
      recordingHooks(calls, () => {
        throw new Error('TREEWARDEN_HOME must be an absolute path, got "state"');
      }),
      'linux',
    );
    ready();
    await settle();
    expect(calls).toEqual([
      'requestLock',
      'harden',
      'releaseLock',
      `showError ${START_FAILED_TITLE}: TREEWARDEN_HOME must be an absolute path, got "state"`,
      `exit ${START_FAILED_EXIT_CODE}`,
    ]);
  });

  it('a quit releases the lock at once, exits only after the host closed, and focuses nothing meanwhile', async () => {
    const { app, calls, emit, ready } = recordingApp();
    let closeDone: () => void = () => {};
    const started: StartedApp = {
      focus: () => calls.push('focus'),
      close: () => {
        calls.push('close');
        return new Promise<void>((resolve) => {
          closeDone = resolve;
        });
      },
    };
    runLifecycle(
      app,
      recordingHooks(calls, () => started),
      'linux',
    );
    ready();
    await settle();
    emit('second-instance');
    expect(calls.at(-1)).toBe('focus');
    const beforeQuit = emit('before-quit');
    expect(beforeQuit.prevented).toBe(true);
    expect(calls.slice(-2)).toEqual(['releaseLock', 'close']);
    // A launch while the runs are still being ended: no focus on the closing window.
    emit('second-instance');
    emit('window-all-closed');
    // A second quit while the runs are being ended neither closes again nor cuts the close short.
    expect(emit('before-quit').prevented).toBe(true);
    await settle();
    expect(calls.filter((call) => call.startsWith('exit'))).toEqual([]);
    closeDone();
    await settle();
    expect(calls.slice(-3)).toEqual(['releaseLock', 'close', 'exit 0']);
    expect(calls.filter((call) => call === 'focus')).toHaveLength(1);
  });

  it.each([
    ['linux', true],
    ['win32', true],
    ['darwin', false],
  ] as const)('on %s, closing the last window quits: %s', async (platform, quits) => {
    const { app, calls, emit, ready } = recordingApp();
    const started: StartedApp = {
      focus: () => calls.push('focus'),
      close: async () => {
        calls.push('close');
      },
    };
    runLifecycle(
      app,
      recordingHooks(calls, () => started),
      platform,
    );
    ready();
    await settle();
    emit('window-all-closed');
    await settle();
    expect(calls.includes('close')).toBe(quits);
    expect(calls.includes('exit 0')).toBe(quits);
    if (quits) return;
    emit('activate');
    expect(calls.at(-1)).toBe('focus');
  });
});
