import { describe, expect, it } from 'vitest';
import { exitCodeFor, signalExitCode } from '../src/commands/run.js';

const base = {
  runId: 'r',
  exitCode: null,
  signal: null,
  pid: 1,
  startTime: '1',
  durationMs: 0,
  killAttempts: 0,
  survivors: [],
  leftovers: [],
  stdoutTail: '',
  stderrTail: '',
} as const;

describe('run exit codes', () => {
  it.each([
    ['timeout', 124],
    ['memory_limit', 124],
    ['process_limit', 124],
    ['cpu_limit', 124],
    ['stalled', 124],
    ['kill_failed', 125],
    ['launch_failure', 126],
    ['missing_binary', 127],
  ] as const)('%s exits %i', (classification, code) => {
    expect(exitCodeFor({ ...base, classification })).toBe(code);
  });

  it("ok, error and the refined errors exit with the worker's own status", () => {
    expect(exitCodeFor({ ...base, classification: 'ok', exitCode: 0 })).toBe(0);
    expect(exitCodeFor({ ...base, classification: 'usage_limit', exitCode: 7 })).toBe(7);
    expect(exitCodeFor({ ...base, classification: 'error', signal: 'SIGSEGV' })).toBe(139);
    expect(signalExitCode('SIGTERM')).toBe(143);
  });
});
