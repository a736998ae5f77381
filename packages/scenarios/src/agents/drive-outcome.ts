/**
 * What both agent drivers (leaks: drive.ts, pile-ups: drive-pile.ts) report the same way: the
 * per-process result lines of a clean-up or trim, and the outcome facts of a scenario that ran no
 * supervised worker (no exit code, no kill timeline of its own: the engine's clean-up has its own).
 */
import type { DriverTools, ScenarioOutcomeFacts } from '../types.js';
import type { CastMember, PkillPreview } from './pkill-preview.js';

interface ProcessResult {
  readonly pid: number;
  readonly result: string;
  readonly detail?: string | undefined;
}

export function stepProcessResults(tools: DriverTools, processes: readonly ProcessResult[]): void {
  for (const process of processes)
    tools.step(`  ${process.pid}: ${process.result}${process.detail ? ` (${process.detail})` : ''}`);
}

export function agentOutcomeFacts(
  startedAt: number,
  classification: ScenarioOutcomeFacts['classification'],
  cast: readonly CastMember[] | undefined,
  pkill: readonly PkillPreview[] | undefined,
): ScenarioOutcomeFacts {
  return {
    classification,
    exitCode: null,
    signal: null,
    stdoutTail: '',
    stderrTail: '',
    durationMs: Date.now() - startedAt,
    killTimeline: [],
    leftovers: 0,
    ...(cast === undefined ? {} : { cast }),
    ...(pkill === undefined ? {} : { pkill }),
  };
}
