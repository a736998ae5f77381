/**
 * Untrusted text on a terminal. Process argv, cwd, file paths and file contents come from other
 * users and other programs: printed raw, a newline forges a line in root's terminal and an escape
 * sequence rewrites the screen. Every human-readable output goes through here; JSON is escaped by
 * JSON.stringify instead and never passes through (a `\x1b` there would be an invalid JSON escape).
 *
 * Shown visibly, in the `\xNN` / `\uNNNN` form: C0 controls (as `\n`, `\r`, `\t` for the common
 * three), DEL, C1 controls, the bidi embeddings/overrides/isolates and marks (which reorder what
 * follows them), lone surrogates and U+FFFD (what invalid UTF-8 decodes to: the bytes were not
 * text, so say so rather than print a look-alike). The output is printable and escaping is
 * idempotent: escaping escaped text changes nothing.
 */
import { writeOut } from './args.js';

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * One code unit or one surrogate pair per match: C0, DEL, C1, LRM/RLM/ALM, LRE..RLO, LRI..PDI,
 * U+FFFD and any surrogate (the `u` flag is off so a lone half matches; a valid pair is kept).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching controls is this regex's job
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeUnit(unit: string): string {
  const named = NAMED[unit];
  if (named !== undefined) return named;
  const code = unit.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control, bidi control and undecodable unit shown as an escape; one line always. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, escapeUnit);
}

/** An argv as one printable line (each argument escaped, joined by spaces). */
export function terminalArgs(args: readonly string[]): string {
  return args.map(terminalText).join(' ');
}

/**
 * The sink for composed human-readable output: every line's text is escaped, only the line breaks
 * the command itself put between lines survive. A field a formatter forgot to escape can then still
 * not carry an escape sequence or a carriage return; its newlines are why fields are escaped too.
 */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}

/** writeOut for people: `text` through terminalLines first. */
export function writeText(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return writeOut(stream, terminalLines(text));
}
