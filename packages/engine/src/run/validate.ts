/**
 * Checks a RunSpec before anything is launched. A refused spec throws a RunSpecError whose
 * message names the bound and the value, so the caller knows how to fix the call.
 */
import { decodeArgv, isBase64 } from '../runtime/argv-bytes.js';
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

/**
 * The bytes must be what the display strings were decoded from, one per argument: what a person
 * reads in the ledger and the UI is then what ran, U+FFFD for the bytes that are not text.
 */
function checkArgvBytes(spec: RunSpec): void {
  if (spec.argvBase64 === undefined) return;
  const display = [spec.command, ...(spec.args ?? [])];
  if (spec.argvBase64.length !== display.length || !spec.argvBase64.every(isBase64)) {
    throw new RunSpecError(
      `argvBase64 must hold ${display.length} base64 strings, one for the command and each argument`,
    );
  }
  const bytes = decodeArgv(spec.argvBase64);
  const at = bytes.findIndex((arg, index) => arg.includes(0) || arg.toString('utf8') !== display[index]);
  if (at >= 0) {
    throw new RunSpecError(
      `argvBase64[${at}] holds a NUL byte or is not the bytes of ${at === 0 ? 'command' : `args[${at - 1}]`}: give the bytes each string was decoded from`,
    );
  }
}

/** Throws RunSpecError for anything that must not reach spawn. */
export function validateRunSpec(spec: RunSpec, probe: () => CgroupProbe = probeCgroup): ValidatedSpec {
  if (typeof spec.command !== 'string' || spec.command.length === 0) {
    throw new RunSpecError('command is empty: give the program to run, e.g. { command: "node", args: ["job.js"] }');
  }
  checkArgvBytes(spec);
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
