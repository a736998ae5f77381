/** The New Run form's limits: empty sets none; values are checked against the protocol's bounds. */
import { describe, expect, it } from 'vitest';
import { NO_LIMITS, readLimits } from '../src/components/limit-fields';

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
    expect(readLimits({ ...NO_LIMITS, procs: 'many' }).error).toBe('Max processes is not a number.');
    expect(readLimits({ ...NO_LIMITS, procs: '0' }).error).toMatch(/^Limit maxProcs: /);
    expect(readLimits({ ...NO_LIMITS, procs: '2.5' }).error).toMatch(/^Limit maxProcs: /);
    expect(readLimits({ ...NO_LIMITS, memoryMiB: '0.5' }).error).toMatch(/^Limit maxMemoryBytes: /);
    expect(readLimits({ ...NO_LIMITS, idleSeconds: '99999' }).error).toMatch(/^Limit idleTimeoutSeconds: /);
  });
});
