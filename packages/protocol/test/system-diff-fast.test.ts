/**
 * The hand-written check of the system diff (system-diff-fast.ts) against the schema it stands in
 * for: over every field's edge values, one at a time and in random combinations, whatever the fast
 * check accepts the schema accepts too, with the same output; and it does accept the ordinary
 * messages (or it would be no faster).
 */
import { describe, expect, it } from 'vitest';
import { parseServerMessage } from '../src/envelope.js';
import { eventSchema } from '../src/events.js';
import { parseSystemDiffFast } from '../src/system-diff-fast.js';

const BASE: Record<string, unknown> = {
  pid: 42,
  startTime: '12345',
  ppid: 1,
  pgid: 42,
  sid: 42,
  state: 'S',
  uid: 1000,
  command: 'node',
  commandLine: 'node server.js',
  cwd: '/srv',
  cpuPercent: 1.5,
  rssBytes: 1024,
  startedAtMs: 1_700_000_000_000,
  escaped: false,
};

const ABSENT = Symbol('absent');
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '1',
  null,
  true,
];
const STRINGS = ['', 'a', 'ab', 'abc', 'é', 1, null, undefined, ABSENT];

/** Candidate values per field, valid and not (ABSENT: the key left out). */
const CANDIDATES: Record<string, readonly unknown[]> = {
  pid: [...NUMBERS, ABSENT],
  startTime: STRINGS,
  ppid: [...NUMBERS, ABSENT],
  pgid: NUMBERS,
  sid: NUMBERS,
  uid: NUMBERS,
  state: STRINGS,
  command: STRINGS,
  commandLine: STRINGS,
  cwd: [...STRINGS, null],
  cpuPercent: [...NUMBERS, undefined, ABSENT],
  rssBytes: [...NUMBERS, ABSENT],
  startedAtMs: [...NUMBERS, ABSENT],
  escaped: [true, false, 0, 'true', null, ABSENT],
  escapedInto: ['session', 'group', 'other', '', 1, undefined, ABSENT],
  evidence: [
    [],
    ['a'],
    ['x'.repeat(512)],
    ['x'.repeat(513)],
    Array(8).fill('e'),
    Array(9).fill('e'),
    [1],
    'a',
    null,
    undefined,
    ABSENT,
  ],
  listening: [[], [{ proto: 'tcp', address: '127.0.0.1', port: 3000 }], undefined, ABSENT],
  extra: ['ignored', ABSENT],
};

function withField(node: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const copy = { ...node };
  if (value === ABSENT) delete copy[field];
  else copy[field] = value;
  return copy;
}

function event(upserts: unknown[], removed: unknown[] = ['7:99'], full: unknown = false) {
  return { type: 'systemDiff', full, upserts, removed };
}

/** The fast answer must be the schema's, whenever the fast check gives one. */
function expectAgreement(raw: unknown): boolean {
  const fast = parseSystemDiffFast(raw);
  if (fast === null) return false;
  const schema = eventSchema.safeParse(raw);
  expect(schema.success, JSON.stringify(raw)).toBe(true);
  expect(fast).toStrictEqual(schema.data);
  return true;
}

/** A small seeded generator: the same combinations every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('the system diff fast check', () => {
  it('accepts an ordinary diff, and with it the same output as the schema', () => {
    expect(expectAgreement(event([BASE, withField(BASE, 'cpuPercent', ABSENT)]))).toBe(true);
    expect(expectAgreement(event([], [], true))).toBe(true);
  });

  it('agrees with the schema on every edge value of every field', () => {
    let accepted = 0;
    for (const [field, values] of Object.entries(CANDIDATES))
      for (const value of values) if (expectAgreement(event([withField(BASE, field, value)]))) accepted += 1;
    // The valid values are taken by the fast path (it would be no faster otherwise).
    expect(accepted).toBeGreaterThan(60);
  });

  it('agrees with the schema on random combinations of them', () => {
    const next = random(19);
    let accepted = 0;
    for (let round = 0; round < 3000; round += 1) {
      let node: Record<string, unknown> = { ...BASE };
      for (const [field, values] of Object.entries(CANDIDATES))
        if (next() < 0.3) node = withField(node, field, values[Math.floor(next() * values.length)]);
      if (expectAgreement(event([BASE, node]))) accepted += 1;
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('leaves everything but a well-formed diff to the schema', () => {
    for (const raw of [
      null,
      'systemDiff',
      event([BASE], ['ok', 3]),
      event([BASE], ['ok'], 'no'),
      event([null]),
      event([[BASE]]),
      { ...event([BASE]), type: 'snapshot' },
      { type: 'systemDiff', full: false, upserts: 'x', removed: [] },
    ])
      expect(parseSystemDiffFast(raw)).toBeNull();
  });

  it('is what parseServerMessage answers, and the schema still names what is wrong', () => {
    const good = parseServerMessage({ kind: 'event', event: event([BASE]) });
    expect(good).toEqual({ ok: true, value: { kind: 'event', event: eventSchema.parse(event([BASE])) } });
    const bad = parseServerMessage(JSON.stringify({ kind: 'event', event: event([withField(BASE, 'pid', -1)]) }));
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.error).toMatch(/upserts\.0\.pid/);
  });
});
