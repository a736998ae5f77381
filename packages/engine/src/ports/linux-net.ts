/**
 * Pure parsers for Linux's socket tables (`/proc/net/{tcp,tcp6,udp,udp6}`). The kernel prints each
 * address as 32-bit words with `%08X` of a big-endian value read in host byte order, so on a
 * little-endian machine the bytes of every word come out reversed (`0100007F` is 127.0.0.1);
 * the port is printed as a plain number (`1F90` is 8080).
 */
import { endianness } from 'node:os';
import type { AddressFamily, NetSocket, PortProto } from './types.js';

export type ByteOrder = 'LE' | 'BE';

/** TCP_LISTEN: a TCP socket that accepts connections. */
export const TCP_LISTEN_STATE = '0A';
/** TCP_CLOSE on a UDP socket: not connected to a peer, i.e. a bound (server-style) UDP socket. */
export const UDP_UNCONNECTED_STATE = '07';

/** `sl local rem st tx:rx tr:when retrnsmt uid timeout inode …`; the fields we read are 1, 3 and 9. */
const ROW =
  /^\s*\d+:\s+([0-9A-Fa-f]+):([0-9A-Fa-f]{4})\s+[0-9A-Fa-f]+:[0-9A-Fa-f]{4}\s+([0-9A-Fa-f]{2})\s+(?:\S+\s+){5}(\d+)/;

/** One 8-hex-digit word as its four bytes in address order. */
function wordBytes(hex: string, order: ByteOrder): number[] {
  const bytes = [0, 2, 4, 6].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return order === 'LE' ? bytes.reverse() : bytes;
}

/** An address from its bytes in network order: 4 bytes dotted, 16 bytes as RFC 5952 IPv6. */
export function formatAddressBytes(bytes: readonly number[]): string {
  return bytes.length === 4 ? bytes.join('.') : formatIpv6(bytes);
}

function formatIpv6(bytes: readonly number[]): string {
  const isMapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isMapped) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  // RFC 5952: compress the longest run of two or more zero groups (the first one on a tie).
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** A `/proc/net` address (8 hex digits for IPv4, 32 for IPv6) as text, or null when malformed. */
export function parseHexAddress(hex: string, order: ByteOrder = hostByteOrder()): string | null {
  if (!/^[0-9A-Fa-f]+$/.test(hex)) return null;
  if (hex.length === 8) return wordBytes(hex, order).join('.');
  if (hex.length !== 32) return null;
  const bytes = [0, 8, 16, 24].flatMap((at) => wordBytes(hex.slice(at, at + 8), order));
  return formatIpv6(bytes);
}

export function hostByteOrder(): ByteOrder {
  return endianness();
}

export interface NetTableKind {
  readonly proto: PortProto;
  readonly family: AddressFamily;
}

/**
 * Every socket row of one table, or null when any row is not understood: a table missing rows
 * would read as "nothing listens there", so a format we do not know is no table at all.
 */
export function parseProcNet(text: string, kind: NetTableKind, order: ByteOrder = hostByteOrder()): NetSocket[] | null {
  const sockets: NetSocket[] = [];
  const lines = text.split('\n');
  for (const line of lines.slice(1)) {
    if (line.trim().length === 0) continue;
    const match = ROW.exec(line);
    if (match === null) return null;
    const [, addressHex = '', portHex = '', state = '', inode = ''] = match;
    const address = parseHexAddress(addressHex, order);
    const expectedLength = kind.family === 4 ? 8 : 32;
    if (address === null || addressHex.length !== expectedLength) return null;
    sockets.push({
      proto: kind.proto,
      family: kind.family,
      address,
      port: Number.parseInt(portHex, 16),
      state: state.toUpperCase(),
      inode: Number(inode),
    });
  }
  return sockets;
}

/** A listening TCP socket, or a bound unconnected UDP socket with a port; inode 0 has no owner left (TIME_WAIT…). */
export function isListeningSocket(socket: NetSocket): boolean {
  if (socket.inode === 0 || socket.port === 0) return false;
  return socket.proto === 'tcp' ? socket.state === TCP_LISTEN_STATE : socket.state === UDP_UNCONNECTED_STATE;
}
