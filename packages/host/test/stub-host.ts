/** An EngineHost that answers from a function: for tests of the serve front, not of the engine. */
import type { HostEvent } from '@treewarden/protocol';
import type { EngineHost, HandleResult } from '../src/host.js';
import type { WorkerTableReader } from '../src/poll/worker-reader.js';

export interface StubHost extends EngineHost {
  emit(event: HostEvent): void;
}

export function createStubHost(
  handle: (command: unknown) => Promise<HandleResult> = async () => ({ ok: true, result: null }),
): StubHost {
  const listeners = new Set<(event: HostEvent) => void>();
  return {
    handle: (command) => handle(command),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(event) {
      for (const listener of listeners) listener(event);
    },
    dropClient: () => {},
    pollNow: async () => {},
    // The front never reads tables; a test that reaches this has a bug worth a crash.
    reader: null as unknown as WorkerTableReader,
    close: async () => {},
  };
}
