/**
 * The poll worker's reader holds /proc/PID/stat files open between polls; ending the worker must
 * give every one back to the process (Node closes a terminated worker's descriptors, measured
 * here), or a host started and stopped many times would leak one descriptor per process each time.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWorkerTableReader } from '../src/poll/worker-reader.js';

/** This process's descriptors open on some /proc/PID/stat. */
function openStatFiles(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (/^\/proc\/\d+\/stat$/.test(readlinkSync(`/proc/self/fd/${fd}`))) count += 1;
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return count;
}

describe('poll worker stat files', () => {
  it('holds stat files across polls and gives every one back when closed', async () => {
    const before = openStatFiles();
    const reader = createWorkerTableReader();
    const first = await reader.readAll();
    const second = await reader.readAll();
    expect(first?.entries.size).toBeGreaterThan(0);
    expect(second?.entries.has(process.pid)).toBe(true);
    // Held from the second read on: about one per process (a few may have gone meanwhile).
    expect(openStatFiles() - before).toBeGreaterThan((second?.entries.size ?? 0) / 2);
    await reader.close();
    expect(openStatFiles()).toBe(before);
  });
});
