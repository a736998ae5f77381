import { endianness } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseDiagMessages } from '../../src/ports/linux-sock-diag.js';
import type { NetSocket } from '../../src/ports/types.js';

const LE = endianness() === 'LE';

/** One netlink message: nlmsghdr + inet_diag_msg, laid out as the kernel sends it. */
function diagMessage(family: 2 | 10, address: readonly number[], port: number, inode: number): Buffer {
  const message = Buffer.alloc(16 + 72);
  const view = new DataView(message.buffer);
  view.setUint32(0, message.length, LE);
  view.setUint16(4, 20, LE); // SOCK_DIAG_BY_FAMILY
  message[16] = family;
  message[17] = 10; // TCP_LISTEN
  message.writeUInt16BE(port, 16 + 4); // idiag_sport, network order
  message.set(address, 16 + 8); // idiag_src, network order
  view.setUint32(16 + 68, inode, LE);
  return message;
}

function control(type: 2 | 3): Buffer {
  const message = Buffer.alloc(20);
  const view = new DataView(message.buffer);
  view.setUint32(0, message.length, LE);
  view.setUint16(4, type, LE);
  return message;
}

describe('sock_diag replies', () => {
  it('reads IPv4 and IPv6 listeners (ports and addresses in network order) until NLMSG_DONE', () => {
    const v6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1];
    const reply = Buffer.concat([diagMessage(2, [127, 0, 0, 1], 8080, 4242), diagMessage(10, v6, 443, 99), control(3)]);
    const out: NetSocket[] = [];
    expect(parseDiagMessages(reply, reply.length, out)).toBe(true);
    expect(out).toEqual([
      { proto: 'tcp', family: 4, address: '127.0.0.1', port: 8080, state: '0A', inode: 4242 },
      { proto: 'tcp', family: 6, address: '::ffff:127.0.0.1', port: 443, state: '0A', inode: 99 },
    ]);
  });

  it('asks for more while the dump is not done, and gives up on an error or a torn message', () => {
    const one = diagMessage(2, [0, 0, 0, 0], 22, 7);
    expect(parseDiagMessages(one, one.length, [])).toBe(false);
    const error = control(2);
    expect(parseDiagMessages(error, error.length, [])).toBeNull();
    expect(parseDiagMessages(one, one.length - 8, [])).toBeNull();
  });
});
