/** The New Run form's limits: empty sets none; values are checked against the protocol's bounds. */
import { describe, expect, it } from 'vitest';
import { NO_LIMITS, readLimits } from '../src/components/limit-fields';
import { formatLimits, formatTrip } from '../src/model/limits';

describe('New Run limit fields', () => {
  it('sends no limits when every field is empty', () => {
    expect(readLimits(NO_LIMITS)).toEqual({});
  });

  it('converts MiB to bytes and keeps only the fields given', () => {
    expect(readLimits({ ...NO_LIMITS, memoryMiB: '512', procs: '8' })).toEqual({
      limits: { maxMemoryBytes: 512 * 1024 * 1024, maxProcs: 8 },
    });
    expect(readLimits({ ...NO_LIMITS, cpuSeconds: '1.5', idleSeconds: '30' })).toEqual({
      limits: { maxCpuSeconds: 1.5, idleTimeoutSeconds: 30 },
    });
  });

  it('refuses a value that is not a number, or out of bounds, naming the field', () => {
    expect(readLimits({ ...NO_LIMITS, procs: 'many' }).error).toBe('Max processes "many" is not a whole number.');
    expect(readLimits({ ...NO_LIMITS, procs: '0' }).error).toMatch(/^Max processes: .*1/);
    expect(readLimits({ ...NO_LIMITS, procs: '2.5' }).error).toBe('Max processes "2.5" is not a whole number.');
    expect(readLimits({ ...NO_LIMITS, memoryMiB: '0.5' }).error).toMatch(/^Max memory \(MiB\): /);
    expect(readLimits({ ...NO_LIMITS, idleSeconds: '99999' }).error).toMatch(/^Idle timeout \(s\): .*5400/);
  });

  it("reads fields with the CLI's strict parser: spaces, exponents and overflow are refused", () => {
    expect(readLimits({ ...NO_LIMITS, memoryMiB: '512 ' }).error).toBe(
      'Max memory (MiB) "512 " is not a number of MiB (remove the surrounding spaces).',
    );
    expect(readLimits({ ...NO_LIMITS, cpuSeconds: '1e3' }).error).toBe('Max CPU (s) "1e3" is not a number of seconds.');
    expect(readLimits({ ...NO_LIMITS, procs: '9'.repeat(400) }).error).toBe(
      `Max processes "${'9'.repeat(400)}" is too large.`,
    );
  });
});

describe('limits in the run details', () => {
  it('lists the limits set and says which one ended the run, with both numbers', () => {
    expect(formatLimits({ maxMemoryBytes: 512 * 1024 * 1024, maxProcs: 8, idleTimeoutSeconds: 30 })).toBe(
      'memory 512 MiB · 8 processes · idle 30 s',
    );
    expect(formatTrip({ name: 'max-memory', value: 256 * 1024 * 1024, observed: 300 * 1024 * 1024 })).toBe(
      'tree memory 300 MiB > 256 MiB',
    );
    expect(formatTrip({ name: 'max-procs', value: 8, observed: 11 })).toBe('11 live processes > 8');
    expect(formatTrip({ name: 'max-cpu', value: 2, observed: 2.04 })).toBe('tree CPU 2.0 s > 2 s');
    expect(formatTrip({ name: 'idle-timeout', value: 2, observed: 2.1 })).toBe(
      'no output for 2.1 s (idle timeout 2 s)',
    );
  });
});
