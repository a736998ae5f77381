/** Small parsers shared by the commands; each failure is a UsageError naming the flag and its value. */
import { type LimitTextKind, parseLimitText } from '@treewarden/protocol/limit-text';
import { UsageError } from './commands/command.js';

/**
 * A time flag (`--timeout`, `--grace`, `--max-cpu`, …) through the protocol's one strict limit
 * parser; bounds are the engine's job, so its message names the bound.
 */
export function parseSeconds(flag: string, raw: string | undefined): number | undefined {
  return parseFlagText(flag, 'seconds', raw);
}

/** `raw` read strictly as `kind` (no surrounding spaces, no hex or exponents); a usage error naming the flag otherwise. */
export function parseFlagText(flag: string, kind: LimitTextKind, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseLimitText(kind, raw);
  if (!parsed.ok) throw new UsageError(`${flag} ${JSON.stringify(raw)} ${parsed.problem}`);
  return parsed.value;
}

export function parsePid(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`${flag} ${JSON.stringify(raw)} is not a process id (a positive integer)`);
  }
  return value;
}

/** Writes and waits for the write to be flushed, so process.exit never truncates output. */
export function writeOut(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}
