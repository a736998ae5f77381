import { describe, expect, it } from 'vitest';
import { readProcEntry, readProcTable } from '../src/table/index.js';

describe('linux /proc table', () => {
  it('reads this process with its identity', () => {
    const table = readProcTable();
    const self = table.entries.get(process.pid);
    expect(self?.startTime).toMatch(/^\d+$/);
    expect(readProcEntry(process.pid)?.startTime).toBe(self?.startTime);
  });
});
