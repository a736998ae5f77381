/**
 * Splits a command line the way a POSIX shell splits words — quotes, backslashes, whitespace —
 * and nothing more: no variable, glob or tilde expansion, no command substitution. Treewarden
 * starts programs without a shell, so an operator (pipe, redirect, `;`, `&&`, a subshell) is
 * refused with a message that says how to get one.
 */

export type SplitResult =
  | { readonly ok: true; readonly argv: string[] }
  | { readonly ok: false; readonly error: string };

/** Unquoted characters that mean something only to a shell. */
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '`']);
/** Inside double quotes a backslash escapes only these (POSIX), otherwise it stays. */
const DOUBLE_QUOTE_ESCAPES = new Set(['"', '\\', '$', '`', '\n']);
const WHITESPACE = /\s/;

function operatorError(operator: string): string {
  return (
    `"${operator}" is shell syntax, and Treewarden runs programs without a shell. Quote it to pass it ` +
    `as an argument, or run a shell yourself: sh -c '…'`
  );
}

export function splitCommandLine(line: string): SplitResult {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && DOUBLE_QUOTE_ESCAPES.has(line[i + 1] ?? '')) {
        i += 1;
        if (line[i] !== '\n') word += line[i];
      } else word += char;
      continue;
    }
    if (WHITESPACE.test(char)) {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (char === "'" || char === '"') quote = char;
    else if (char === '\\') {
      if (i + 1 >= line.length) return { ok: false, error: 'the line ends with a lone backslash' };
      i += 1;
      if (line[i] !== '\n') word += line[i];
    } else if (OPERATORS.has(char) || (char === '$' && line[i + 1] === '(')) {
      return { ok: false, error: operatorError(char === '$' ? '$(' : char) };
    } else word += char;
  }
  if (quote !== null) return { ok: false, error: `a ${quote === "'" ? 'single' : 'double'} quote is not closed` };
  if (inWord) argv.push(word);
  return { ok: true, argv };
}
