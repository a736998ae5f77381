/**
 * The one strict reader of limit values typed by a person: the CLI's limit and time flags
 * (`--max-memory`, `--max-procs`, `--max-cpu`, `--idle-timeout`, `--timeout`, `--grace`) and the
 * New Run form's fields all go through it, so `'1G '` is refused in both places alike. Strict
 * means the whole text is the number: no surrounding whitespace (`Number(' 5')` is 5, and a stray
 * space usually means a shell quoting slip that hid something else), no hex or exponent forms, no
 * `Infinity`. Bounds are not checked here: the engine's `normalizeLimits` names them.
 * Import-free, so the renderer, the engine and the CLI all use the same one.
 */

/** What the text should be: bytes with an optional binary unit, a whole count, seconds, or MiB. */
export type LimitTextKind = 'size' | 'count' | 'seconds' | 'mebibytes';

export type ParsedLimitText =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly problem: string };

const SIZE_MULTIPLIERS: Readonly<Record<string, number>> = {
  '': 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
};

const COUNT = /^-?\d+$/;
const SECONDS = /^-?\d+(?:\.\d+)?$/;
const MEBIBYTES = /^\d+(?:\.\d+)?$/;
// Fractions only with a unit: a fraction of a byte means a typo.
const SIZE = /^(\d+(?:\.\d+)?)([KMGT]?)(?:i?B)?$/i;

const SHAPES: Readonly<Record<LimitTextKind, string>> = {
  size: 'is not a size: give bytes or a number with K, M, G or T (binary), e.g. 512M, 1.5G',
  count: 'is not a whole number',
  seconds: 'is not a number of seconds',
  mebibytes: 'is not a number of MiB',
};

function problem(text: string, kind: LimitTextKind): ParsedLimitText {
  if (text === '') return { ok: false, problem: 'is empty' };
  if (text.trim() !== text) return { ok: false, problem: `${SHAPES[kind]} (remove the surrounding spaces)` };
  return { ok: false, problem: SHAPES[kind] };
}

function finite(value: number): ParsedLimitText {
  // A digit string too long for a double reads as Infinity: refused here, since no bound message
  // can name it; anything finite goes on to the bounds, whose message names the maximum.
  if (!Number.isFinite(value)) return { ok: false, problem: 'is too large' };
  // `-0` reads as 0, so a bound message never prints "-0".
  return { ok: true, value: value === 0 ? 0 : value };
}

function parseSizeText(text: string): ParsedLimitText {
  const match = SIZE.exec(text);
  const digits = match?.[1];
  const unit = match?.[2]?.toUpperCase() ?? '';
  const multiplier = SIZE_MULTIPLIERS[unit];
  if (digits === undefined || multiplier === undefined || (unit === '' && digits.includes('.'))) {
    return problem(text, 'size');
  }
  return finite(Math.floor(Number(digits) * multiplier));
}

/** The number the text spells, or what is wrong with it (to follow the flag or field name). */
export function parseLimitText(kind: LimitTextKind, text: string): ParsedLimitText {
  if (kind === 'size') return parseSizeText(text);
  const shape = kind === 'count' ? COUNT : kind === 'seconds' ? SECONDS : MEBIBYTES;
  if (!shape.test(text)) return problem(text, kind);
  return finite(Number(text));
}
