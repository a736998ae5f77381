/**
 * Classifies how a worker's root exited on its own (no timeout, no cancel by us): exit 0 is `ok`
 * whatever it printed; any other end is refined from its output into usage_limit, auth_failure or
 * cancelled, else `error`.
 */
import type { Classification } from '@treewarden/protocol/vocabulary';
import { FAILURE_PATTERNS, type FailureClassification } from './patterns.js';

/** Signals that mean someone interrupted the worker on purpose (Ctrl-C style), not a crash. */
const CANCEL_SIGNALS: ReadonlySet<string> = new Set(['SIGINT']);
/** Shell convention for "terminated by SIGINT". */
const SIGINT_EXIT_CODE = 130;

export interface ExitFacts {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderr: string;
  readonly stdout?: string;
}

/** First matching failure pattern in `text`, or null. */
export function matchFailure(text: string): FailureClassification | null {
  if (text.length === 0) return null;
  for (const { classification, pattern } of FAILURE_PATTERNS) {
    if (pattern.test(text)) return classification;
  }
  return null;
}

export function classifyExit(facts: ExitFacts): Classification {
  if (facts.exitCode === 0 && facts.signal === null) return 'ok';
  // stderr is where agent CLIs report why they stopped; stdout is the fallback (some print
  // their limit notice as the "result" on stdout in headless mode).
  const fromOutput = matchFailure(facts.stderr) ?? matchFailure(facts.stdout ?? '');
  if (fromOutput !== null) return fromOutput;
  if (facts.signal !== null && CANCEL_SIGNALS.has(facts.signal)) return 'cancelled';
  if (facts.exitCode === SIGINT_EXIT_CODE) return 'cancelled';
  return 'error';
}
