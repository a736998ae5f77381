/**
 * Runaway limits beyond time: what a run may use before its tree is ended. The bounds live in the
 * protocol's vocabulary (shared with the UI); the CLI, `openLease().startRun` (and so the guardian) and the app's host all reach them
 * through `validateRunSpec`, so a bad value is refused before anything launches, with a message
 * that names the bound.
 */

import { parseLimitText } from '@treewarden/protocol/limit-text';
import {
  LIMIT_ENFORCEMENTS,
  LIMIT_METHODS,
  LIMIT_NAMES,
  type LimitName,
  MAX_CPU_LIMIT_SECONDS,
  MAX_IDLE_TIMEOUT_SECONDS,
  MAX_MEMORY_LIMIT_BYTES,
  MAX_PROCS_LIMIT,
  MIN_CPU_LIMIT_SECONDS,
  MIN_IDLE_TIMEOUT_SECONDS,
  MIN_MEMORY_LIMIT_BYTES,
  MIN_PROCS_LIMIT,
} from '@treewarden/protocol/vocabulary';
import { RunSpecError } from './spec-error.js';

// The names and bounds are shared with every UI: defined once, in the protocol's vocabulary.
export {
  LIMIT_NAMES,
  type LimitName,
  MAX_CPU_LIMIT_SECONDS,
  MAX_IDLE_TIMEOUT_SECONDS,
  MAX_MEMORY_LIMIT_BYTES,
  MAX_PROCS_LIMIT,
  MIN_CPU_LIMIT_SECONDS,
  MIN_IDLE_TIMEOUT_SECONDS,
  MIN_MEMORY_LIMIT_BYTES,
  MIN_PROCS_LIMIT,
};

/** Limits a run may carry; each is optional, none is set by default. */
export interface RunLimits {
  /** Sum of the tree's resident memory (RSS), bytes. */
  readonly maxMemoryBytes?: number;
  /** Live (non-zombie) members of the tree. */
  readonly maxProcs?: number;
  /** CPU time of the tree, members that already exited included, seconds. */
  readonly maxCpuSeconds?: number;
  /** No stdout/stderr output for this long ends the run (`stalled`); needs captured or teed output. */
  readonly idleTimeoutSeconds?: number;
}

export const LIMIT_CLASSIFICATIONS = {
  'max-memory': 'memory_limit',
  'max-procs': 'process_limit',
  'max-cpu': 'cpu_limit',
  'idle-timeout': 'stalled',
} as const satisfies Record<LimitName, string>;
export type LimitClassification = (typeof LIMIT_CLASSIFICATIONS)[LimitName];

/**
 * A limit that tripped: its name, the configured value and what was observed, in the limit's own
 * unit (bytes, processes, CPU seconds, seconds without output).
 */
export interface LimitTrip {
  readonly name: LimitName;
  readonly value: number;
  readonly observed: number;
}

/**
 * How limits were enforced: `polling` reads the owned tree on every refresh (every platform);
 * `cgroup` placed the run in its own cgroup v2 (run/cgroup.ts), whose counters the refresh reads.
 */
export type LimitEnforcement = (typeof LIMIT_ENFORCEMENTS)[number];

/**
 * What one limit was checked against: the owned tree's table (`polling`), the run cgroup's
 * `cgroup.procs` (every live member, escapees included), `cpu.stat` usage_usec (exact, exited
 * members included), `memory.stat` anon + file_mapped (with the memory controller), or the output clock.
 */
export { LIMIT_ENFORCEMENTS, LIMIT_METHODS };
export type LimitMethod = (typeof LIMIT_METHODS)[number];
export type LimitMethods = Partial<Record<LimitName, LimitMethod>>;

interface LimitBounds {
  readonly flag: string;
  readonly unit: string;
  readonly min: number;
  readonly max: number;
  readonly minName: string;
  readonly maxName: string;
  readonly integer: boolean;
}

const BOUNDS = {
  maxMemoryBytes: {
    flag: 'max-memory',
    unit: 'bytes',
    min: MIN_MEMORY_LIMIT_BYTES,
    max: MAX_MEMORY_LIMIT_BYTES,
    minName: 'MIN_MEMORY_LIMIT_BYTES',
    maxName: 'MAX_MEMORY_LIMIT_BYTES',
    integer: true,
  },
  maxProcs: {
    flag: 'max-procs',
    unit: 'processes',
    min: MIN_PROCS_LIMIT,
    max: MAX_PROCS_LIMIT,
    minName: 'MIN_PROCS_LIMIT',
    maxName: 'MAX_PROCS_LIMIT',
    integer: true,
  },
  maxCpuSeconds: {
    flag: 'max-cpu',
    unit: 'seconds',
    min: MIN_CPU_LIMIT_SECONDS,
    max: MAX_CPU_LIMIT_SECONDS,
    minName: 'MIN_CPU_LIMIT_SECONDS',
    maxName: 'MAX_CPU_LIMIT_SECONDS',
    integer: false,
  },
  idleTimeoutSeconds: {
    flag: 'idle-timeout',
    unit: 'seconds',
    min: MIN_IDLE_TIMEOUT_SECONDS,
    max: MAX_IDLE_TIMEOUT_SECONDS,
    minName: 'MIN_IDLE_TIMEOUT_SECONDS',
    maxName: 'MAX_IDLE_TIMEOUT_SECONDS',
    integer: false,
  },
} as const satisfies Record<keyof RunLimits, LimitBounds>;

const LIMIT_KEYS = Object.keys(BOUNDS) as (keyof RunLimits)[];

function checkBound(key: keyof RunLimits, value: unknown): number {
  const b: LimitBounds = BOUNDS[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RunSpecError(`${b.flag} ${String(value)} is not a number of ${b.unit}`);
  }
  if (b.integer && !Number.isInteger(value)) {
    throw new RunSpecError(`${b.flag} ${value} is not a whole number of ${b.unit}`);
  }
  if (value < b.min) throw new RunSpecError(`${b.flag} ${value} is below ${b.minName} (${b.min})`);
  if (value > b.max) throw new RunSpecError(`${b.flag} ${value} is above ${b.maxName} (${b.max})`);
  return value;
}

/**
 * The limits as given, each within its bounds; throws RunSpecError naming the bound. Unknown
 * keys are refused too: a misspelt limit silently not enforced is worse than an error.
 */
export function normalizeLimits(limits: unknown, outputCaptured: boolean): RunLimits {
  if (limits === undefined) return {};
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new RunSpecError(`limits must be an object such as { maxMemoryBytes: 536870912 }`);
  }
  const given = limits as Record<string, unknown>;
  const unknown = Object.keys(given).filter((key) => !(LIMIT_KEYS as string[]).includes(key));
  if (unknown.length > 0) {
    throw new RunSpecError(`unknown limit ${unknown.join(', ')}: the limits are ${LIMIT_KEYS.join(', ')}`);
  }
  const normalized: { -readonly [K in keyof RunLimits]: number } = {};
  for (const key of LIMIT_KEYS) {
    if (given[key] !== undefined) normalized[key] = checkBound(key, given[key]);
  }
  if (normalized.idleTimeoutSeconds !== undefined && !outputCaptured) {
    throw new RunSpecError('idle-timeout needs the output captured or teed: output "inherit" hides it from us');
  }
  return normalized;
}

export function hasLimits(limits: RunLimits): boolean {
  return LIMIT_KEYS.some((key) => limits[key] !== undefined);
}

/**
 * `512M`, `2G`, `1.5G`, `1048576`: binary units K/M/G/T (case-insensitive, an optional trailing
 * `B`/`iB` allowed), read by the protocol's one strict limit parser (no surrounding spaces).
 * Fractions only with a unit; the result is rounded down to whole bytes. Bounds are not checked
 * here (normalizeLimits does, naming them).
 */
export function parseSize(text: string): number {
  const parsed = parseLimitText('size', text);
  if (!parsed.ok) throw new RunSpecError(`max-memory ${JSON.stringify(text)} ${parsed.problem}`);
  return parsed.value;
}
