import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { directoryOwnerIsEuid, parseCmdline } from '../../src/table/linux-entry.js';
import { parseProcStat, parseStatBytes } from '../../src/table/linux-stat.js';

/** The parser this one replaced (split after the last `)`), kept here as the reference. */
function splitParse(text: string) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  return {
    command: text.slice(open + 1, close),
    state: rest[0],
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    flags: Number(rest[6]),
    cpuTicks: Number(rest[11]) + Number(rest[12]),
    childCpuTicks: Number(rest[13]) + Number(rest[14]),
    numThreads: Number(rest[17]),
    startTicks: rest[19],
    rssPages: Number(rest[21]),
    codeStart: Number(rest[23]),
    argStart: rest.length > 45 ? Number(rest[45]) : 0,
  };
}

const TAIL =
  '0 -1 4194560 101 0 0 0 7 3 11 13 20 0 1 0 4242 9998336 812 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0';

describe('/proc/PID/stat parsing', () => {
  it('agrees with the split parser on every live stat line', () => {
    let compared = 0;
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let text: string;
      try {
        text = readFileSync(`/proc/${name}/stat`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      expect(parseProcStat(text)).toEqual(splitParse(text));
      compared += 1;
    }
    expect(compared).toBeGreaterThan(1);
  });

  it('takes comm up to the last parenthesis, spaces and parentheses included', () => {
    const stat = parseProcStat(`77 (a) b (c)) S 1 77 77 ${TAIL}\n`);
    expect(stat).toMatchObject({ command: 'a) b (c)', state: 'S', ppid: 1, pgid: 77, sid: 77 });
    expect(stat).toMatchObject({ flags: 4194560, cpuTicks: 10, childCpuTicks: 24, numThreads: 1 });
    expect(stat).toMatchObject({ startTicks: '4242', rssPages: 812 });
  });

  it("reads arg_start where the line has it, and 0 where it ends before (never the last line's)", () => {
    const own = readFileSync('/proc/self/stat', 'utf8');
    expect(parseProcStat(own)?.argStart).toBeGreaterThan(0);
    // TAIL stops at field 41: the shared field array still holds the line above's arg_start.
    expect(parseProcStat(`77 (a) S 1 77 77 ${TAIL}\n`)?.argStart).toBe(0);
  });

  it('reads negative fields and parses in place within the given length', () => {
    const line = Buffer.from(`5 (x) R -1 -2 -3 ${TAIL}\ngarbage after the line`);
    const stat = parseStatBytes(line, line.indexOf('\n') + 1);
    expect(stat).toMatchObject({ ppid: -1, pgid: -2, sid: -3, rssPages: 812 });
  });

  it('replaces invalid UTF-8 in comm only', () => {
    const line = Buffer.concat([Buffer.from('9 (bad'), Buffer.from([0xff]), Buffer.from(`) S 1 9 9 ${TAIL}\n`)]);
    expect(parseStatBytes(line)).toMatchObject({ command: 'bad\uFFFD', state: 'S', ppid: 1, startTicks: '4242' });
  });

  it('refuses a line without comm or cut before rss', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('12 no parentheses S 1 2 3')).toBeNull();
    expect(parseProcStat('12 (cut) S 1 12 12 0 -1 4194560 101 0 0 0 7 3 11 13 20 0 1 0 4242\n')).toBeNull();
  });
});

describe('where the effective uid is read from', () => {
  it('trusts the /proc/PID owner from Linux 4.11 on, and reads status before', () => {
    expect(directoryOwnerIsEuid('6.18.44-fc-v1045')).toBe(true);
    expect(directoryOwnerIsEuid('4.11.0')).toBe(true);
    expect(directoryOwnerIsEuid('5.0.0-generic')).toBe(true);
    expect(directoryOwnerIsEuid('4.10.17')).toBe(false);
    expect(directoryOwnerIsEuid('3.10.0-1160.el7.x86_64')).toBe(false);
    expect(directoryOwnerIsEuid('garbage')).toBe(false);
  });
});

describe('/proc/PID/cmdline parsing', () => {
  it('splits on NUL, with or without the trailing ones', () => {
    expect(parseCmdline(Buffer.from('sleep\u000060\u0000'))).toEqual(['sleep', '60']);
    expect(parseCmdline(Buffer.from('setproctitle output'))).toEqual(['setproctitle output']);
    expect(parseCmdline(Buffer.from('a\u0000\u0000b\u0000'))).toEqual(['a', '', 'b']);
    expect(parseCmdline(new Uint8Array(0))).toEqual([]);
    // A rewritten argv (postgres's ps display) pads the area it no longer uses with NULs.
    expect(parseCmdline(Buffer.from('postgres: checkpointer\u0000\u0000\u0000\u0000'))).toEqual([
      'postgres: checkpointer',
    ]);
  });

  it('replaces invalid UTF-8 exactly as the WHATWG decoder does, in that argument only', () => {
    const reference = new TextDecoder('utf-8', { fatal: false });
    // Seeded so a failure can be replayed: bytes biased towards NUL, ASCII and UTF-8 lead/continuation bytes.
    let seed = 19;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const pool = [0, 0x61, 0x7f, 0x80, 0xbf, 0xc2, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0xff, 0xed, 0xa0];
    for (let sample = 0; sample < 500; sample += 1) {
      const bytes = Uint8Array.from({ length: 1 + (next() % 24) }, () => pool[next() % pool.length] ?? 0);
      let end = bytes.length;
      while (end > 0 && bytes[end - 1] === 0) end -= 1;
      const expected = end === 0 ? [] : reference.decode(bytes.subarray(0, end)).split('\u0000');
      expect(parseCmdline(bytes)).toEqual(expected);
    }
    const offset = Buffer.from('xxbad\u0000').subarray(2);
    offset[2] = 0xff; // a view into a larger buffer: its offset must be kept
    expect(parseCmdline(offset)).toEqual(['ba\uFFFD']);
  });
});
