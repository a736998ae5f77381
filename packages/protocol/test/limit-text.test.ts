/**
 * The one strict limit parser (CLI flags and the New Run form): the class of sloppy input —
 * surrounding whitespace, other number syntaxes, empty text, overflow — is refused for every kind.
 */
import { describe, expect, it } from 'vitest';
import { type LimitTextKind, parseLimitText } from '../src/limit-text.js';

const KINDS: readonly LimitTextKind[] = ['size', 'count', 'seconds', 'mebibytes'];
const MIB = 1024 * 1024;

describe('parseLimitText', () => {
  it.each<[LimitTextKind, string, number]>([
    ['size', '512M', 512 * MIB],
    ['size', '1.5G', 1.5 * 1024 * MIB],
    ['size', '64k', 64 * 1024],
    ['size', '256MiB', 256 * MIB],
    ['size', '3MB', 3 * MIB],
    ['size', '1048576', MIB],
    ['count', '200', 200],
    ['count', '-3', -3],
    ['seconds', '1.5', 1.5],
    ['seconds', '600', 600],
    ['seconds', '-1', -1],
    ['mebibytes', '512', 512],
    ['mebibytes', '0.5', 0.5],
  ])('%s %j is %d', (kind, text, value) => {
    expect(parseLimitText(kind, text)).toEqual({ ok: true, value });
  });

  const sloppy = ['1G ', ' 1G', '\t5', '5\n', ' 5 ', '1 G'];
  it.each(KINDS.flatMap((kind) => sloppy.map((text) => [kind, text] as const)))(
    'refuses %s %j (whitespace)',
    (kind, text) => {
      const parsed = parseLimitText(kind, text);
      expect(parsed.ok).toBe(false);
    },
  );

  it('says to remove the spaces when that is all that is wrong', () => {
    expect(parseLimitText('size', '1G ')).toEqual({
      ok: false,
      problem:
        'is not a size: give bytes or a number with K, M, G or T (binary), e.g. 512M, 1.5G (remove the surrounding spaces)',
    });
  });

  const otherSyntax = ['0x10', '1e3', 'Infinity', 'NaN', '+5', '.5', '5.', '1_000', '١٢', 'lots'];
  it.each(KINDS.flatMap((kind) => otherSyntax.map((text) => [kind, text] as const)))(
    'refuses %s %j (not plain decimal)',
    (kind, text) => {
      expect(parseLimitText(kind, text).ok).toBe(false);
    },
  );

  it.each(KINDS)('refuses empty text for %s, saying it is empty', (kind) => {
    expect(parseLimitText(kind, '')).toEqual({ ok: false, problem: 'is empty' });
  });

  it.each<[LimitTextKind, string]>([
    ['size', `${'9'.repeat(400)}T`],
    ['count', '9'.repeat(400)],
    ['seconds', '9'.repeat(400)],
    ['mebibytes', '9'.repeat(400)],
  ])('refuses %s %j as too large (past a double)', (kind, text) => {
    expect(parseLimitText(kind, text)).toEqual({ ok: false, problem: 'is too large' });
  });

  it('refuses fractions of a byte and signs on sizes', () => {
    expect(parseLimitText('size', '1.5').ok).toBe(false);
    expect(parseLimitText('size', '-1G').ok).toBe(false);
    expect(parseLimitText('count', '2.5').ok).toBe(false);
  });
});
