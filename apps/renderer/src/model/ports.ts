/** Listening sockets as the UI shows them: `tcp 127.0.0.1:3000`, per process and per run. */
import type { ListeningSocket, ProcessNode } from '@treewarden/protocol';

/** IPv6 addresses get brackets so the port stays readable: `tcp [::1]:3000`. */
export function formatSocket(socket: ListeningSocket): string {
  const host = socket.address.includes(':') ? `[${socket.address}]` : socket.address;
  return `${socket.proto} ${host}:${socket.port}`;
}

function compareSockets(a: ListeningSocket, b: ListeningSocket): number {
  return a.port - b.port || a.proto.localeCompare(b.proto) || a.address.localeCompare(b.address);
}

/** Every socket the processes listen on, each once, by port (a run's chip list). */
export function socketsOf(processes: readonly ProcessNode[]): ListeningSocket[] {
  const seen = new Map<string, ListeningSocket>();
  for (const node of processes) for (const socket of node.listening ?? []) seen.set(formatSocket(socket), socket);
  return [...seen.values()].sort(compareSockets);
}

/** The short form for a chip or a column: `:3000` (tcp) or `udp :53`. */
export function shortSocket(socket: ListeningSocket): string {
  return socket.proto === 'tcp' ? `:${socket.port}` : `udp :${socket.port}`;
}

/** Sort value of the Ports column: the lowest listening port; processes without one sort last. */
export function lowestPort(node: ProcessNode): number {
  const ports = (node.listening ?? []).map((socket) => socket.port);
  return ports.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...ports);
}
