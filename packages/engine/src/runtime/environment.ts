/**
 * Copies of an environment that cost one pass over it. Node's `process.env` is not a plain
 * object: every key it enumerates is checked, and every value read, with `getenv`, a scan of the
 * whole environment, so copying it (`{ ...process.env }`, `Object.entries`, and `spawn`'s own
 * default) is quadratic: ~6 s at 20,000 variables on these machines, ~50 s at 100,000. A plain
 * object built here costs microseconds per variable, and `spawn` copies a plain object linearly.
 */
import { readFileSync } from 'node:fs';

/** A plain-object copy of `env`, skipping unset values. Linear for plain objects only. */
export function copyEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const key in env) {
    const value = env[key];
    if (value !== undefined) copy[key] = value;
  }
  return copy;
}

/**
 * `NAME=value\0…` (as /proc/PID/environ holds it) → variables. The first of two equal names wins,
 * as `getenv` (and so `process.env`) answers; an entry without `=`, or with an empty name, is no
 * variable and is skipped, as Node skips it. Into `into` when given: names already there stay.
 */
export function parseEnvironBlock(text: string, into: Record<string, string> = {}): Record<string, string> {
  const env = into;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\0', start);
    if (end < 0) end = text.length;
    const eq = text.indexOf('=', start);
    if (eq > start && eq < end) {
      const name = text.slice(start, eq);
      if (!Object.hasOwn(env, name)) env[name] = text.slice(eq + 1, end);
    }
    start = end + 1;
  }
  return env;
}

/**
 * An environment still in its `NAME=value\0…` form, as /proc/PID/environ holds it. Sending this
 * one string to the guardian costs a fraction of an object of 20,000 variables (JSON both ways,
 * the schema's per-entry check), and it is parsed once, into the object the worker's spawn needs.
 */
export class EnvironBlock {
  constructor(readonly text: string) {}
}

/** A base environment: variables, or a block to be parsed into them. */
export type BaseEnvironment = Readonly<Record<string, string | undefined>> | EnvironBlock;

/**
 * A fresh object for spawn, in one pass over the base: `leading` first (it wins over both), then
 * `overlay` (it wins over the base), then the base's variables not already set (parsed, or copied
 * skipping unset values), in their order. Leading is where a run's cookies go: readers of
 * /proc/PID/environ read a bounded prefix (membership/cookie.ts), which a huge environment would
 * push them out of.
 */
export function environmentWith(
  base: BaseEnvironment,
  overlay: Readonly<Record<string, string>> | undefined,
  leading: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = { ...leading };
  for (const key in overlay) if (!Object.hasOwn(env, key)) env[key] = overlay[key] as string;
  if (base instanceof EnvironBlock) return parseEnvironBlock(base.text, env);
  for (const key in base) {
    const value = base[key];
    if (value !== undefined && !Object.hasOwn(env, key)) env[key] = value;
  }
  return env;
}

/**
 * The block this process started with (Linux: /proc/self/environ), or null where it cannot be
 * read. Only for a process that never changes its own environment (see readStartEnvironment).
 */
export function readStartEnvironBlock(): EnvironBlock | null {
  if (process.platform !== 'linux') return null;
  try {
    return new EnvironBlock(readFileSync('/proc/self/environ', 'utf8'));
  } catch {
    return null; // No /proc here (a container without it).
  }
}

/**
 * The environment this process started with, in one linear pass: on Linux from
 * /proc/self/environ, which holds the variables as exec gave them and never sees a later change
 * made through `process.env`. So only a process that never changes its own environment may use it
 * (the CLI: nothing in it writes `process.env`); elsewhere, or when /proc cannot be read, the
 * (quadratic) copy of `process.env`.
 */
export function readStartEnvironment(): Record<string, string> {
  const block = readStartEnvironBlock();
  return block === null ? copyEnvironment(process.env) : parseEnvironBlock(block.text);
}
