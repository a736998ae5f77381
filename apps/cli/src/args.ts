/** Small parsers shared by the commands; each failure is a UsageError naming the flag and its value. */
import { UsageError } from './commands/command.js';

/** Seconds as a number (bounds are the engine's job, so its message names the bound). */
export function parseSeconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || Number.isNaN(value)) {
    throw new UsageError(`${flag} ${JSON.stringify(raw)} is not a number of seconds`);
  }
  return value;
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
