/**
 * Checks a RunSpec before anything is launched. A refused spec throws a RunSpecError whose
 * message names the bound and the value, so the caller knows how to fix the call.
 */
import { type CgroupProbe, probeCgroup, requireCgroup } from './cgroup-probe.js';
import { normalizeLimits, type RunLimits } from './limits.js';
import { RunSpecError } from './spec-error.js';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS, type RunSpec } from './types.js';

/** Grace between SIGTERM and SIGKILL; a longer grace would hold a timed-out tree alive too long. */
export const MIN_GRACE_SECONDS = 0;
export const MAX_GRACE_SECONDS = 600;

export { RunSpecError };

interface Bounds {
  readonly min: number;
  readonly max: number;
  /** The constants' names, so the message points at what to read. */
  readonly minName: string;
  readonly maxName: string;
}

const TIMEOUT_BOUNDS: Bounds = {
  min: MIN_TIMEOUT_SECONDS,
  max: MAX_TIMEOUT_SECONDS,
  minName: 'MIN_TIMEOUT_SECONDS',
  maxName: 'MAX_TIMEOUT_SECONDS',
};
const GRACE_BOUNDS: Bounds = {
  min: MIN_GRACE_SECONDS,
  max: MAX_GRACE_SECONDS,
  minName: 'MIN_GRACE_SECONDS',
  maxName: 'MAX_GRACE_SECONDS',
};

function rangeText(b: Bounds): string {
  return `from ${b.minName} (${b.min}) to ${b.maxName} (${b.max})`;
}

/** A number of seconds within `b`, or a RunSpecError that names the bound. */
function requireSeconds(what: string, value: number, b: Bounds): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new RunSpecError(`${what} ${String(value)} is not a number: give seconds ${rangeText(b)}`);
  }
  if (value < b.min) throw new RunSpecError(`${what} ${value} is below ${b.minName} (${b.min})`);
  if (value > b.max) throw new RunSpecError(`${what} ${value} is above ${b.maxName} (${b.max})`);
  return value;
}

/** `undefined` means "use the default"; `null`, NaN and out-of-bound values are refused. */
export function normalizeTimeout(value: number | null | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (value === null) {
    throw new RunSpecError(`timeout null is not allowed: give a number of seconds ${rangeText(TIMEOUT_BOUNDS)}`);
  }
  return requireSeconds('timeout', value, TIMEOUT_BOUNDS);
}

/** `undefined` means "use the kill's default grace". */
export function normalizeGrace(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return requireSeconds('grace', value, GRACE_BOUNDS);
}

export interface ValidatedSpec {
  readonly timeoutMs: number;
  /** Undefined: the tree kill's own default. */
  readonly graceMs: number | undefined;
  /** Each within its bounds; empty when the run has none. */
  readonly limits: RunLimits;
  /** With `cgroup: true`: the parent the run's cgroup goes under (refused before launch where there is none). */
  readonly cgroupParent?: Extract<CgroupProbe, { available: true }>;
}

/** Throws RunSpecError for anything that must not reach spawn. */
export function validateRunSpec(spec: RunSpec, probe: () => CgroupProbe = probeCgroup): ValidatedSpec {
  if (typeof spec.command !== 'string' || spec.command.length === 0) {
    throw new RunSpecError('command is empty: give the program to run, e.g. { command: "node", args: ["job.js"] }');
  }
  const timeoutSeconds = normalizeTimeout(spec.timeoutSeconds);
  const graceSeconds = normalizeGrace(spec.graceSeconds);
  const limits = normalizeLimits(spec.limits, spec.output !== 'inherit');
  const cgroupParent = spec.cgroup === true ? requireCgroup(probe) : undefined;
  return {
    ...(cgroupParent === undefined ? {} : { cgroupParent }),
    timeoutMs: Math.round(timeoutSeconds * 1000),
    graceMs: graceSeconds === undefined ? undefined : Math.round(graceSeconds * 1000),
    limits,
  };
}
