/**
 * The one reading of a request target that every decision of the server uses. The token gate,
 * the router and the static file server all see the same decoded, normalised path, so an encoding
 * that one of them would decode can never slip past another (`/%69ndex.html`, `/a/..%2f..%2fx`,
 * `//index.html`, `\`). Only origin-form targets (`/path?query`) are accepted: absolute form,
 * authority form, `*` and empty targets are refused with a reason, never with a throw.
 */

/** Longer targets are refused before any decoding work (Node already caps the header block). */
export const MAX_TARGET_LENGTH = 8 * 1024;

export interface RequestTarget {
  /** Decoded, `/`-joined path without empty, `.` or `..` segments; `/` for the root. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

export type TargetResult = { ok: true; target: RequestTarget } | { ok: false; reason: string };

const BACKSLASH = 0x5c;
const HASH = 0x23;
const DELETE = 0x7f;
const FIRST_PRINTABLE = 0x20;

/** Control characters, backslashes and `#` have no place in a path we serve, encoded or not. */
function hasForbiddenCharacter(path: string): boolean {
  for (let index = 0; index < path.length; index += 1) {
    const code = path.charCodeAt(index);
    if (code < FIRST_PRINTABLE || code === DELETE || code === BACKSLASH || code === HASH) return true;
  }
  return false;
}

function refuse(reason: string): TargetResult {
  return { ok: false, reason };
}

function decodePath(rawPath: string): string | null {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return null;
  }
}

/** Resolves `.` and `..` like a file system would, but refuses to climb above the root. */
function normaliseSegments(decoded: string): string[] | null {
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.pop() === undefined) return null;
      continue;
    }
    segments.push(segment);
  }
  return segments;
}

export function parseRequestTarget(raw: string | undefined): TargetResult {
  if (raw === undefined || raw.length === 0) return refuse('empty request target');
  if (raw.length > MAX_TARGET_LENGTH) return refuse(`request target longer than ${MAX_TARGET_LENGTH} characters`);
  if (!raw.startsWith('/')) return refuse('only origin-form request targets (/path?query) are served');
  const queryStart = raw.indexOf('?');
  const rawPath = queryStart < 0 ? raw : raw.slice(0, queryStart);
  // Decoded exactly once: `%252e` stays the literal `%2e`, as the file server will also see it.
  const decoded = decodePath(rawPath);
  if (decoded === null) return refuse('malformed percent-encoding in the path');
  if (hasForbiddenCharacter(decoded)) return refuse('control characters, backslashes or # in the path');
  const segments = normaliseSegments(decoded);
  if (segments === null) return refuse('the path climbs above the root');
  const query = new URLSearchParams(queryStart < 0 ? '' : raw.slice(queryStart + 1));
  return { ok: true, target: { path: `/${segments.join('/')}`, segments, query } };
}

/** The single value of `name` in the query; null when it is missing or given more than once. */
export function singleQueryValue(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name);
  return values.length === 1 ? (values[0] as string) : null;
}
