/**
 * Host and engine sentences (leak reasons, pile-up evidence, warnings) made readable before they
 * are shown: `code spans` become code, ISO times become a local clock time, the home directory
 * reads `~` and a long path is cut in its middle. Every shortened piece keeps its whole form for a
 * tooltip, so nothing is hidden, only folded. Pure.
 */
import { formatFullDateTime, formatWallClock } from './format';

/** `at`: where the piece starts in the sentence (a stable key). */
export type ProsePiece =
  | { readonly kind: 'text'; readonly at: number; readonly text: string }
  | { readonly kind: 'time'; readonly at: number; readonly text: string; readonly iso: string; readonly title: string }
  | { readonly kind: 'path'; readonly at: number; readonly text: string; readonly title: string | null };

export interface ProseSpan {
  readonly at: number;
  readonly code: boolean;
  readonly pieces: readonly ProsePiece[];
}

/** A path longer than this is cut in its middle (its first and last segments stay). */
export const PATH_MAX_CHARS = 40;

const ISO_TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})`;
/** A path starts at a slash not inside a word, a URL or another path, and never ends on a full stop. */
const PATH = String.raw`(?<![\w.~:/-])/[^\s\`'"(),;:<>]*[^\s\`'"(),;:<>.]`;
const TOKEN = new RegExp(`(${ISO_TIME})|(${PATH})`, 'g');

export interface ProseOptions {
  /** The host user's home directory; absent: paths keep their home prefix. */
  readonly homeDir?: string | undefined;
  readonly nowMs?: number;
}

/** `/home/ana/x` → `~/x` when `/home/ana` is the home directory. */
export function tildePath(path: string, homeDir: string | undefined): string {
  if (!homeDir || homeDir === '/') return path;
  const home = homeDir.endsWith('/') ? homeDir.slice(0, -1) : homeDir;
  if (path === home) return '~';
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** `~/work/a/b/c/fixtures/run.mjs` → `~/work/…/fixtures/run.mjs`: first and last segments kept. */
export function middleEllipsis(path: string, max = PATH_MAX_CHARS): string {
  if (path.length <= max) return path;
  const segments = path.split('/');
  const head = segments[0] === '' ? `/${segments[1] ?? ''}` : (segments[0] ?? '');
  const rest = segments.slice(segments[0] === '' ? 2 : 1);
  for (let keep = rest.length - 1; keep >= 1; keep -= 1) {
    const cut = `${head}/…/${rest.slice(rest.length - keep).join('/')}`;
    if (cut.length <= max) return cut;
  }
  const last = rest[rest.length - 1] ?? path;
  const cut = `${head}/…/${last}`;
  return cut.length <= max ? cut : `…${path.slice(path.length - max + 1)}`;
}

function piecesOf(text: string, offset: number, options: ProseOptions): ProsePiece[] {
  const pieces: ProsePiece[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    const index = match.index;
    if (index > at) pieces.push({ kind: 'text', at: offset + at, text: text.slice(at, index) });
    const [whole, iso] = match;
    if (iso !== undefined) {
      const ms = Date.parse(iso);
      pieces.push(
        Number.isFinite(ms)
          ? {
              kind: 'time',
              at: offset + index,
              text: formatWallClock(ms, options.nowMs),
              iso,
              title: formatFullDateTime(ms),
            }
          : { kind: 'text', at: offset + index, text: whole },
      );
    } else {
      const shown = middleEllipsis(tildePath(whole, options.homeDir));
      pieces.push({ kind: 'path', at: offset + index, text: shown, title: shown === whole ? null : whole });
    }
    at = index + whole.length;
  }
  if (at < text.length) pieces.push({ kind: 'text', at: offset + at, text: text.slice(at) });
  return pieces;
}

/** The sentence in spans: odd backtick-delimited parts are code; an unpaired backtick stays text. */
export function parseProse(text: string, options: ProseOptions = {}): ProseSpan[] {
  const parts = text.split('`');
  // An odd count of backticks: the last one opens nothing, so it is put back as text.
  if (parts.length % 2 === 0) parts.splice(parts.length - 2, 2, `${parts[parts.length - 2]}\`${parts.at(-1)}`);
  const spans: ProseSpan[] = [];
  let offset = 0;
  parts.forEach((part, index) => {
    const pieces = piecesOf(part, offset, options);
    if (pieces.length > 0) spans.push({ at: offset, code: index % 2 === 1, pieces });
    offset += part.length + 1;
  });
  return spans;
}

/** Paths folded (home as `~`, long ones cut in the middle) before a sentence is cut to a length. */
export function foldPaths(text: string, homeDir: string | undefined): string {
  return text.replace(new RegExp(PATH, 'g'), (path) => middleEllipsis(tildePath(path, homeDir)));
}

/** The same sentence as plain text, for a tooltip: times local, home as `~`, paths whole, no backticks. */
export function proseTitle(text: string, options: ProseOptions = {}): string {
  return parseProse(text, options)
    .flatMap((span) =>
      span.pieces.map((piece) =>
        piece.kind === 'time'
          ? piece.title
          : piece.kind === 'path'
            ? tildePath(piece.title ?? piece.text, options.homeDir)
            : piece.text,
      ),
    )
    .join('');
}
