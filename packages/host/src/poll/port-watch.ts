/**
 * Which sockets the shown processes listen on. The port map is read in the poll worker, never
 * more often than PORT_READ_INTERVAL_MS (not on each tick): for the owned trees only (a per-pid
 * read, ~1 ms for a run), or for every process while a view shows the system's Ports column.
 * Listeners are kept by identity `pid:startTime`, so a recycled pid never inherits a port.
 */
import { identityKey, type PortMap } from '@treewarden/engine';
import { type ListeningSocket, MAX_LISTENING_PER_PROCESS } from '@treewarden/protocol';

/** Ports change rarely next to CPU and memory: a listener shows up (or goes) within this bound. */
export const PORT_READ_INTERVAL_MS = 2000;

export type PortScope = 'owned' | 'all';

export interface PortWatch {
  /**
   * Reads the map again when the interval passed, or at once when the scope widened to `all`
   * (the system view just opened its Ports column). `pids`: the owned processes to read for.
   */
  refresh(scope: PortScope, pids: readonly number[], nowMs: number): Promise<void>;
  /**
   * The sockets each identity `pid:startTime` listened on at the last read (undefined: none). A
   * new function only when a read found other listeners than the one before: the same function
   * tells a consumer (the system rows) that no process's sockets changed.
   */
  readonly listeningOf: (key: string) => readonly ListeningSocket[] | undefined;
}

export type ReadPorts = (pids: readonly number[] | null) => Promise<PortMap | null>;

function indexListeners(map: PortMap): Map<string, ListeningSocket[]> {
  const byIdentity = new Map<string, ListeningSocket[]>();
  for (const listener of map.listeners) {
    const key = identityKey(listener);
    const sockets = byIdentity.get(key) ?? [];
    // A dual-stack socket can appear once per table; show each (proto, address, port) once.
    const duplicate = sockets.some(
      (socket) =>
        socket.port === listener.port && socket.proto === listener.proto && socket.address === listener.address,
    );
    if (duplicate || sockets.length >= MAX_LISTENING_PER_PROCESS) continue;
    sockets.push({ proto: listener.proto, address: listener.address, port: listener.port });
    byIdentity.set(key, sockets);
  }
  return byIdentity;
}

/** Whether two indexes name the same sockets for the same identities, in the same order. */
function sameListeners(a: ReadonlyMap<string, ListeningSocket[]>, b: ReadonlyMap<string, ListeningSocket[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, sockets] of a) {
    const other = b.get(key);
    if (other === undefined || other.length !== sockets.length) return false;
    for (let i = 0; i < sockets.length; i += 1) {
      const mine = sockets[i] as ListeningSocket;
      const theirs = other[i] as ListeningSocket;
      if (mine.port !== theirs.port || mine.proto !== theirs.proto || mine.address !== theirs.address) return false;
    }
  }
  return true;
}

function lookupIn(map: ReadonlyMap<string, ListeningSocket[]>): PortWatch['listeningOf'] {
  return (key) => map.get(key);
}

export function createPortWatch(readPorts: ReadPorts, intervalMs = PORT_READ_INTERVAL_MS): PortWatch {
  let listening = new Map<string, ListeningSocket[]>();
  let lookup = lookupIn(listening);
  /** Takes the new listeners, keeping the map (and its lookup) when they are the same as before. */
  function take(next: Map<string, ListeningSocket[]>): void {
    if (sameListeners(listening, next)) return;
    listening = next;
    lookup = lookupIn(next);
  }
  let lastReadAtMs = Number.NEGATIVE_INFINITY;
  let lastScope: PortScope = 'owned';
  let failureReported = false;

  return {
    async refresh(scope, pids, nowMs) {
      const widened = scope === 'all' && lastScope !== 'all';
      if (!widened && nowMs - lastReadAtMs < intervalMs) return;
      lastScope = scope;
      lastReadAtMs = nowMs;
      if (scope === 'owned' && pids.length === 0) {
        take(new Map());
        return;
      }
      try {
        const map = await readPorts(scope === 'all' ? null : pids);
        // No map this time: keep the last one rather than show every port as closed.
        if (map !== null) take(indexListeners(map));
      } catch (error) {
        if (!failureReported) {
          failureReported = true;
          process.emitWarning(
            `treewarden host: ports unavailable: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    },
    get listeningOf() {
      return lookup;
    },
  };
}
