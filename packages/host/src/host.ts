/**
 * The engine host: one object that owns the app's leases and runs, polls the process table off
 * the main thread, answers every protocol command and pushes events. Transports (Electron IPC,
 * the loopback WebSocket) only carry its messages; both validate, and so does `handle`.
 */
import { readProcEntry, withDeadline } from '@treewarden/engine';
import { commandResultSchemas, type HostEvent, parseCommand } from '@treewarden/protocol';
import { dispatchCommand } from './commands/dispatch.js';
import type { ExportControl, HostContext } from './context.js';
import type { EnginePort, HostLease } from './engine/port.js';
import { createExportControl } from './export/export-control.js';
import { createPoller } from './poll/poller.js';
import { createWorkerTableReader, type WorkerTableReader } from './poll/worker-reader.js';
import { createCpuTracker } from './snapshot/process-node.js';
import { NO_AGENT_VIEWS } from './snapshot/session-views.js';
import { createSystemRows } from './snapshot/system-rows.js';

export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** close() waits this long for runs to end and leases to be released before it gives up. */
export const CLOSE_TIMEOUT_MS = 15_000;
/** Client id used when a transport does not tell clients apart (Electron: one window). */
export const LOCAL_CLIENT = 'local';

/** The exporter control before the real one is made (nothing can call it in between). */
const NO_EXPORTER: ExportControl = {
  status: () => {
    throw new Error('the exporter control is not ready');
  },
  apply: () => Promise.reject(new Error('the exporter control is not ready')),
  close: async () => undefined,
};

export type HandleResult =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: string };

export interface EngineHostOptions {
  readonly port: EnginePort;
  readonly pollIntervalMs?: number;
  /** Injected for tests; by default a worker-thread reader is created and closed with the host. */
  readonly reader?: WorkerTableReader;
  readonly now?: () => number;
  /** Start the exporter its saved settings enable (the app and `serve`); it runs on this host's events. */
  readonly exportFromSettings?: boolean;
  /** Live roots' exits told by the kernel where it can (default), or looked for by timer (false). */
  readonly rootExitEvents?: boolean;
}

export interface EngineHost {
  /** Validates `command` (untrusted) and runs it; never rejects. */
  handle(command: unknown, clientId?: string): Promise<HandleResult>;
  onEvent(listener: (event: HostEvent) => void): () => void;
  /** A client went away (window closed, socket dropped): forget its system watch. */
  dropClient(clientId: string): void;
  /** Polls now and resolves when the resulting events were emitted. */
  pollNow(): Promise<void>;
  readonly reader: WorkerTableReader;
  /** Cancels the runs it started, releases its leases, stops polling. Idempotent. */
  close(): Promise<void>;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createEngineHost(options: EngineHostOptions): EngineHost {
  const listeners = new Set<(event: HostEvent) => void>();
  const heldById = new Map<string, HostLease>();
  const reader = options.reader ?? createWorkerTableReader();
  const self = readProcEntry(process.pid);
  const sessionCpu = createCpuTracker();
  let closing: Promise<void> | null = null;

  const context: HostContext = {
    port: options.port,
    reader,
    self: { pid: process.pid, startTime: self?.startTime ?? '0' },
    selfCommand: self?.args.join(' ') || process.argv.join(' '),
    runs: new Map(),
    leasesByName: new Map(),
    released: new Map(),
    cleaningRuns: new Set(),
    scenarios: new Set(),
    systemWatchers: new Set(),
    systemPortWatchers: new Set(),
    orphans: [],
    agentScan: null,
    agentViews: NO_AGENT_VIEWS,
    systemRows: createSystemRows(),
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    // Replaced below, once the host it subscribes to exists.
    exporter: NO_EXPORTER,
    now: options.now ?? Date.now,
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          process.emitWarning(`treewarden host: event listener threw: ${errorText(error)}`);
        }
      }
    },
    requestPoll: () => poller.request(),
    requestOrphanScan: () => poller.requestOrphanScan(),
    leaseNamed(name) {
      if (closing !== null) return Promise.reject(new Error('the host is closing: no new runs'));
      let lease = context.leasesByName.get(name);
      if (lease === undefined) {
        lease = options.port.openLease(name).then((opened) => {
          heldById.set(opened.id, opened);
          return opened;
        });
        // A lease that failed to open is not cached: the next start tries again.
        lease.catch(() => context.leasesByName.delete(name));
        context.leasesByName.set(name, lease);
      }
      return lease;
    },
    ownLease: (leaseId) => (context.released.has(leaseId) ? null : (heldById.get(leaseId) ?? null)),
  };

  const poller = createPoller({
    context,
    heldLeases: () => [...heldById.values()].filter((lease) => !context.released.has(lease.id)),
    ownedCpu: createCpuTracker(),
    sessionCpu,
    ...(options.rootExitEvents === undefined ? {} : { rootExitEvents: options.rootExitEvents }),
  });
  poller.start();

  async function close(): Promise<void> {
    poller.stop();
    await context.exporter.close();
    await Promise.allSettled(
      [...context.scenarios].map((scenario) =>
        withDeadline(scenario.interrupt(), CLOSE_TIMEOUT_MS, 'interrupting a scenario'),
      ),
    );
    const running = [...context.runs.values()].filter((record) => record.phase !== 'ended');
    await Promise.allSettled(
      running.flatMap((record) =>
        record.handle === null
          ? []
          : [withDeadline(record.handle.cancel(), CLOSE_TIMEOUT_MS, `cancelling run ${record.id}`)],
      ),
    );
    // A lease still opening would leave its guardian waiting for a holder that forgot it.
    await Promise.allSettled([...context.leasesByName.values()]);
    const held = [...heldById.values()].filter((lease) => !context.released.has(lease.id));
    await Promise.allSettled(
      held.map((lease) => withDeadline(lease.release(), CLOSE_TIMEOUT_MS, `releasing lease ${lease.id}`)),
    );
    listeners.clear();
    if (options.reader === undefined) await reader.close();
  }

  const host: EngineHost = {
    async handle(raw, clientId = LOCAL_CLIENT) {
      const parsed = parseCommand(raw);
      if (!parsed.ok) return { ok: false, error: parsed.error };
      if (closing !== null) return { ok: false, error: 'the host is closing: the command was not run' };
      try {
        const result = await dispatchCommand(parsed.value, { context, clientId, sessionCpu });
        // The UI validates replies too; a host bug is caught here, with the command named.
        const checked = commandResultSchemas[parsed.value.type].safeParse(result);
        if (!checked.success)
          return { ok: false, error: `host produced an invalid ${parsed.value.type} result: ${checked.error.message}` };
        return { ok: true, result: checked.data };
      } catch (error) {
        return { ok: false, error: errorText(error) };
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dropClient(clientId) {
      context.systemWatchers.delete(clientId);
      context.systemPortWatchers.delete(clientId);
      if (context.systemWatchers.size === 0) context.systemRows.resync();
    },
    pollNow: () => poller.tick(),
    reader,
    close() {
      closing ??= close();
      return closing;
    },
  };
  context.exporter = createExportControl({
    stateDir: options.port.stateDir ?? null,
    host,
    startSaved: options.exportFromSettings === true,
  });
  return host;
}
