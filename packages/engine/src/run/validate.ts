/**
 * Checks a RunSpec before anything is launched. A refused spec throws a RunSpecError whose
 * message names the bound and the value, so the caller knows how to fix the call.
 */
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS, type RunSpec } from './types.js';

/** Grace between SIGTERM and SIGKILL; a longer grace would hold a timed-out tree alive too long. */
export const MIN_GRACE_SECONDS = 0;
export const MAX_GRACE_SECONDS = 600;

export class RunSpecError extends Error {
  override readonly name = 'RunSpecError';
}

/** `undefined` means "use the default"; `null`, NaN and out-of-bound values are refused. */
export function normalizeTimeout(value: number | null | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (value === null) {
    throw new RunSpecError(
      `timeout null is not allowed: give a number of seconds from MIN_TIMEOUT_SECONDS (${MIN_TIMEOUT_SECONDS}) to MAX_TIMEOUT_SECONDS (${MAX_TIMEOUT_SECONDS})`,
    );
  }
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new RunSpecError(
      `timeout ${String(value)} is not a number: give seconds from MIN_TIMEOUT_SECONDS (${MIN_TIMEOUT_SECONDS}) to MAX_TIMEOUT_SECONDS (${MAX_TIMEOUT_SECONDS})`,
    );
  }
  if (value < MIN_TIMEOUT_SECONDS) {
    throw new RunSpecError(`timeout ${value} is below MIN_TIMEOUT_SECONDS (${MIN_TIMEOUT_SECONDS})`);
  }
  if (value > MAX_TIMEOUT_SECONDS) {
    throw new RunSpecError(`timeout ${value} is above MAX_TIMEOUT_SECONDS (${MAX_TIMEOUT_SECONDS})`);
  }
  return value;
}

/** `undefined` means "use the kill's default grace". */
export function normalizeGrace(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new RunSpecError(
      `grace ${String(value)} is not a number: give seconds from MIN_GRACE_SECONDS (${MIN_GRACE_SECONDS}) to MAX_GRACE_SECONDS (${MAX_GRACE_SECONDS})`,
    );
  }
  if (value < MIN_GRACE_SECONDS) {
    throw new RunSpecError(`grace ${value} is below MIN_GRACE_SECONDS (${MIN_GRACE_SECONDS})`);
  }
  if (value > MAX_GRACE_SECONDS) {
    throw new RunSpecError(`grace ${value} is above MAX_GRACE_SECONDS (${MAX_GRACE_SECONDS})`);
  }
  return value;
}

export interface ValidatedSpec {
  readonly timeoutMs: number;
  /** Undefined: the tree kill's own default. */
  readonly graceMs: number | undefined;
}

/** Throws RunSpecError for anything that must not reach spawn. */
export function validateRunSpec(spec: RunSpec): ValidatedSpec {
  if (typeof spec.command !== 'string' || spec.command.length === 0) {
    throw new RunSpecError('command is empty: give the program to run, e.g. { command: "node", args: ["job.js"] }');
  }
  const timeoutSeconds = normalizeTimeout(spec.timeoutSeconds);
  const graceSeconds = normalizeGrace(spec.graceSeconds);
  return {
    timeoutMs: Math.round(timeoutSeconds * 1000),
    graceMs: graceSeconds === undefined ? undefined : Math.round(graceSeconds * 1000),
  };
}
