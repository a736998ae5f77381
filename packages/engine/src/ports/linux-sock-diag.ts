/**
 * Listening TCP sockets through netlink sock_diag (what `ss -l` uses), called through koffi.
 * Why not only /proc/net/tcp: every read of it walks the kernel's whole established-connection
 * hash (hundreds of thousands of buckets on a machine with a few GB), 5–50 ms per table here even
 * with two sockets in it; a sock_diag request for LISTEN only walks the listening hash. Yields
 * null whenever netlink is unavailable or answers oddly, and the caller reads /proc/net instead.
 */
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { formatAddressBytes } from './linux-net.js';
import type { NetSocket } from './types.js';

const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_RAW = 3;
const SOCK_CLOEXEC = 0o2000000;
const NETLINK_SOCK_DIAG = 4;
const SOCK_DIAG_BY_FAMILY = 20;
const NLM_F_REQUEST = 0x1;
const NLM_F_DUMP = 0x300;
const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const IPPROTO_TCP = 6;
const TCP_LISTEN = 10;
const SOL_SOCKET = 1;
const SO_RCVTIMEO = 20;
const NLMSG_HEADER_BYTES = 16;
/** inet_diag_req_v2: family, protocol, ext, pad, states (u32), inet_diag_sockid (48 bytes). */
const REQUEST_BYTES = NLMSG_HEADER_BYTES + 56;
/** inet_diag_msg up to and including idiag_inode. */
const DIAG_MSG_BYTES = 72;
/** Bound on one recv (the kernel answers a dump at once; this only guards against a stuck socket). */
export const NETLINK_RECV_TIMEOUT_MS = 1_000;
/** Bound on recv calls per dump (each carries up to RECV_BUFFER_BYTES of sockets). */
export const MAX_NETLINK_RECVS = 10_000;
const RECV_BUFFER_BYTES = 64 * 1024;
/**
 * 64-bit little-endian architectures whose socket option numbers follow the generic ABI
 * (SO_RCVTIMEO = 20, a 16-byte timeval). Elsewhere (ppc64le numbers it 18) /proc/net is read.
 */
const GENERIC_ABI_ARCHES: ReadonlySet<string> = new Set(['x64', 'arm64', 'riscv64', 'loong64']);

interface Libc {
  socket(domain: number, type: number, protocol: number): number;
  send(fd: number, buffer: Buffer, length: number, flags: number): number;
  recv(fd: number, buffer: Buffer, length: number, flags: number): number;
  setsockopt(fd: number, level: number, name: number, value: Buffer, length: number): number;
  close(fd: number): number;
}

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: never[]) => number };
}

let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
    const lib = koffi.load('libc.so.6');
    libc = {
      socket: lib.func('int socket(int, int, int)'),
      send: lib.func('long send(int, const void *, size_t, int)'),
      recv: lib.func('long recv(int, _Out_ void *, size_t, int)'),
      setsockopt: lib.func('int setsockopt(int, int, int, const void *, uint32_t)'),
      close: lib.func('int close(int)'),
    } as unknown as Libc;
  } catch {
    libc = null;
  }
  return libc;
}

const littleEndian = endianness() === 'LE';

function buildRequest(family: number): Buffer {
  const request = Buffer.alloc(REQUEST_BYTES);
  const view = new DataView(request.buffer, request.byteOffset, request.length);
  view.setUint32(0, REQUEST_BYTES, littleEndian);
  view.setUint16(4, SOCK_DIAG_BY_FAMILY, littleEndian);
  view.setUint16(6, NLM_F_REQUEST | NLM_F_DUMP, littleEndian);
  request[16] = family;
  request[17] = IPPROTO_TCP;
  view.setUint32(20, 1 << TCP_LISTEN, littleEndian);
  return request;
}

/** Parses one recv's messages into `out`; true when the dump is done, null on an error reply. */
export function parseDiagMessages(buffer: Buffer, length: number, out: NetSocket[]): boolean | null {
  const view = new DataView(buffer.buffer, buffer.byteOffset, length);
  for (let offset = 0; offset + NLMSG_HEADER_BYTES <= length; ) {
    const messageLength = view.getUint32(offset, littleEndian);
    const type = view.getUint16(offset + 4, littleEndian);
    if (messageLength < NLMSG_HEADER_BYTES || offset + messageLength > length) return null;
    if (type === NLMSG_DONE) return true;
    if (type === NLMSG_ERROR || messageLength < NLMSG_HEADER_BYTES + DIAG_MSG_BYTES) return null;
    const body = offset + NLMSG_HEADER_BYTES;
    const family = buffer[body] === AF_INET6 ? 6 : 4;
    const addressBytes = [...buffer.subarray(body + 8, body + 8 + (family === 4 ? 4 : 16))];
    out.push({
      proto: 'tcp',
      family,
      address: formatAddressBytes(addressBytes),
      port: buffer.readUInt16BE(body + 4),
      state: (buffer[body + 1] ?? 0).toString(16).toUpperCase().padStart(2, '0'),
      inode: view.getUint32(body + 68, littleEndian),
    });
    offset += (messageLength + 3) & ~3;
  }
  return false;
}

function dumpFamily(c: Libc, fd: number, family: number, out: NetSocket[]): boolean {
  const request = buildRequest(family);
  if (c.send(fd, request, request.length, 0) !== request.length) return false;
  const buffer = Buffer.alloc(RECV_BUFFER_BYTES);
  for (let recvs = 0; recvs < MAX_NETLINK_RECVS; recvs += 1) {
    const length = c.recv(fd, buffer, buffer.length, 0);
    if (length <= 0) return false;
    const done = parseDiagMessages(buffer, length, out);
    if (done === null) return false;
    if (done) return true;
  }
  return false;
}

function receiveTimeout(): Buffer {
  const timeval = Buffer.alloc(16); // struct timeval { long tv_sec; long tv_usec; } on 64-bit
  timeval.writeBigInt64LE(BigInt(Math.floor(NETLINK_RECV_TIMEOUT_MS / 1000)), 0);
  timeval.writeBigInt64LE(BigInt((NETLINK_RECV_TIMEOUT_MS % 1000) * 1000), 8);
  return timeval;
}

/** Every listening TCP socket (IPv4 and IPv6) of this network namespace, or null when netlink cannot say. */
export function readTcpListenersNetlink(): NetSocket[] | null {
  const c = process.platform === 'linux' && GENERIC_ABI_ARCHES.has(process.arch) ? loadLibc() : null;
  if (c === null) return null;
  const fd = c.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return null;
  try {
    const timeout = receiveTimeout();
    if (c.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, timeout, timeout.length) !== 0) return null;
    const sockets: NetSocket[] = [];
    for (const family of [AF_INET, AF_INET6]) if (!dumpFamily(c, fd, family, sockets)) return null;
    return sockets;
  } finally {
    c.close(fd);
  }
}
