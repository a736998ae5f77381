import { describe, expect, it } from 'vitest';
import { isListeningSocket, parseHexAddress, parseProcNet } from '../../src/ports/linux-net.js';

// Captured on this machine (x86_64, little-endian): servers on ::, ::1 and ::ffff:127.0.0.1, a
// connection ::1 → ::1 (both ends), a UDP socket bound on ::1 and one on 127.0.0.1.
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1FDE 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 535870 1 00000000060de2d3 100 0 0 10 0
   1: 00000000000000000000000001000000:1FEA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 535868 1 0000000057936af9 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1FDF 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 535869 1 000000005991c96e 100 0 0 10 0
   3: 00000000000000000000000001000000:1FEA 00000000000000000000000001000000:98D6 01 00000000:00000000 00:00000000 00000000     0        0 535874 1 00000000c0d44ceb 20 0 0 10 -1
   4: 00000000000000000000000001000000:98D6 00000000000000000000000001000000:1FEA 01 00000000:00000000 00:00000000 00000000     0        0 535873 2 0000000072ccc285 20 0 0 10 -1
`;
const UDP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
 7938: 00000000000000000000000001000000:D9C7 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 535871 2 00000000f52ae630 0
`;
// udp: a bound socket, a connected one (01) and one bound to no port; tcp: a listener, a
// TIME_WAIT (06, inode 0) and an established connection.
const UDP = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            
14755: 0100007F:B468 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 535872 2 000000004ddfe158 0        
14756: 0100007F:B469 0100007F:0035 01 00000000:00000000 00:00000000 00000000     0        0 535880 2 000000004ddfe158 0        
14757: 00000000:0000 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 535881 2 000000004ddfe158 0        
`;
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     
   0: 0100007F:B635 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 340832 1 00000000e1b3fd7c 100 0 0 10 0                    
   1: 0100007F:ACCD 0100007F:A476 06 00000000:00000000 03:00001180 00000000     0        0 0 3 000000006d46a907                                      
   2: 0A00020F:C350 5DB8D822:01BB 01 00000000:00000000 02:00000A2B 00000000  1000        0 442211 2 0000000000000000 20 4 30 10 -1
`;

describe('/proc/net address parsing', () => {
  it('reverses each 32-bit word on little-endian machines, not on big-endian ones', () => {
    expect(parseHexAddress('0100007F', 'LE')).toBe('127.0.0.1');
    expect(parseHexAddress('7F000001', 'BE')).toBe('127.0.0.1');
    expect(parseHexAddress('0A00020F', 'LE')).toBe('15.2.0.10');
    expect(parseHexAddress('00000000', 'LE')).toBe('0.0.0.0');
    expect(parseHexAddress('00000000000000000000000001000000', 'LE')).toBe('::1');
    expect(parseHexAddress('00000000000000000000000000000001', 'BE')).toBe('::1');
  });

  it('keeps IPv4-mapped IPv6 addresses recognisable and compresses IPv6 per RFC 5952', () => {
    expect(parseHexAddress('0000000000000000FFFF00000100007F', 'LE')).toBe('::ffff:127.0.0.1');
    expect(parseHexAddress('00000000000000000000FFFF7F000001', 'BE')).toBe('::ffff:127.0.0.1');
    expect(parseHexAddress('00000000000000000000000000000000', 'LE')).toBe('::');
    // fe80::1:0:0:2 — the longest zero run is compressed, a shorter one kept.
    expect(parseHexAddress('FE800000000000000001000000000002', 'BE')).toBe('fe80::1:0:0:2');
    expect(parseHexAddress('20010DB8000100020003000400050006', 'BE')).toBe('2001:db8:1:2:3:4:5:6');
  });

  it('rejects addresses of the wrong length or with non-hex digits', () => {
    expect(parseHexAddress('0100007', 'LE')).toBeNull();
    expect(parseHexAddress('0100007G', 'LE')).toBeNull();
    expect(parseHexAddress('', 'LE')).toBeNull();
  });
});

describe('/proc/net table parsing', () => {
  it('reads every row of captured tcp6 text with ports in plain hex', () => {
    const sockets = parseProcNet(TCP6, { proto: 'tcp', family: 6 }, 'LE');
    expect(sockets?.map((s) => [s.address, s.port, s.state, s.inode])).toEqual([
      ['::', 8158, '0A', 535870],
      ['::1', 8170, '0A', 535868],
      ['::ffff:127.0.0.1', 8159, '0A', 535869],
      ['::1', 8170, '01', 535874],
      ['::1', 39126, '01', 535873],
    ]);
    expect(sockets?.every((s) => s.proto === 'tcp' && s.family === 6)).toBe(true);
  });

  it('keeps TCP listeners and bound UDP sockets only: no connections, TIME_WAIT or port-less sockets', () => {
    const tcp = parseProcNet(TCP, { proto: 'tcp', family: 4 }, 'LE') ?? [];
    const tcp6 = parseProcNet(TCP6, { proto: 'tcp', family: 6 }, 'LE') ?? [];
    const udp = parseProcNet(UDP, { proto: 'udp', family: 4 }, 'LE') ?? [];
    const udp6 = parseProcNet(UDP6, { proto: 'udp', family: 6 }, 'LE') ?? [];
    expect(tcp).toHaveLength(3);
    expect(udp).toHaveLength(3);
    const listening = [...tcp, ...tcp6, ...udp, ...udp6].filter(isListeningSocket);
    expect(listening.map((s) => `${s.proto} ${s.address} ${s.port} ${s.inode}`)).toEqual([
      'tcp 127.0.0.1 46645 340832',
      'tcp :: 8158 535870',
      'tcp ::1 8170 535868',
      'tcp ::ffff:127.0.0.1 8159 535869',
      'udp 127.0.0.1 46184 535872',
      'udp ::1 55751 535871',
    ]);
  });

  it('yields no table (null) for a row it does not understand, never a partial one', () => {
    const torn = `${TCP}   3: 0100007F:B6\n`;
    expect(parseProcNet(torn, { proto: 'tcp', family: 4 }, 'LE')).toBeNull();
    // An IPv6 row in a table read as IPv4 is a mix-up, not a socket.
    expect(parseProcNet(TCP6, { proto: 'tcp', family: 4 }, 'LE')).toBeNull();
    expect(parseProcNet(TCP.split('\n')[0] ?? '', { proto: 'tcp', family: 4 }, 'LE')).toEqual([]);
  });
});
