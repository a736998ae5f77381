/**
 * The port model shared by every platform's port reader: which process listens on which socket,
 * each listener named by process identity `(pid, startTime)`, so a kill that follows acts on the
 * process that was seen listening and never on a recycled pid.
 */

/** `tcp`: a listening TCP socket (state LISTEN). `udp`: a bound UDP socket (unconnected, with a local port). */
export type PortProto = 'tcp' | 'udp';
export type AddressFamily = 4 | 6;

/** One row of a kernel socket table, before it is joined with the processes that hold it. */
export interface NetSocket {
  readonly proto: PortProto;
  readonly family: AddressFamily;
  /** Textual local address: `127.0.0.1`, `0.0.0.0`, `::`, `::1`, `::ffff:127.0.0.1`. */
  readonly address: string;
  readonly port: number;
  /** Kernel socket state as two hex digits (`0A` LISTEN, `07` CLOSE = an unconnected UDP socket). */
  readonly state: string;
  readonly inode: number;
}

export interface PortListener {
  readonly port: number;
  readonly proto: PortProto;
  readonly family: AddressFamily;
  readonly address: string;
  readonly pid: number;
  readonly startTime: string;
  /** The socket's inode (Linux); null where the platform does not report one (macOS `lsof -F pcn`). */
  readonly inode: number | null;
}

export interface PortMap {
  /** One row per (process, socket): a socket shared by a parent and its forked child is listed for both. */
  readonly listeners: readonly PortListener[];
  /**
   * Listening sockets no scanned process was found holding (another user's, or a process that was
   * not asked about). Only meaningful for a full read; empty for a read of given pids.
   */
  readonly unattributed: readonly NetSocket[];
  /** Processes whose sockets could not be read (other users, exited or recycled mid-read); skipped, never fatal. */
  readonly skippedPids: number;
  /** Epoch ms when the read finished. */
  readonly readAtMs: number;
}

/** A platform backend. Both reads yield null ("no map") rather than a partial one. */
export interface PortReader {
  readonly platform: NodeJS.Platform;
  /** Every listener on the machine (every readable process). */
  readAll(): Promise<PortMap | null>;
  /** Only the listeners held by the given pids (one run's tree): the socket tables once, those pids' fds only. */
  readForPids(pids: readonly number[]): Promise<PortMap | null>;
}

/** The platform has no port reader yet; the message names the platforms that have one. */
export class PortsUnsupportedError extends Error {
  override readonly name = 'PortsUnsupportedError';
}

/** Port, then protocol, then pid: the order every reader returns. */
export function sortListeners(listeners: PortListener[]): PortListener[] {
  return listeners.sort((a, b) => a.port - b.port || a.proto.localeCompare(b.proto) || a.pid - b.pid);
}
