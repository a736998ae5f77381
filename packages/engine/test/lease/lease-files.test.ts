/**
 * One bad lease file never hides the others: a file missing fields (`{"v":1,"id":"bad"}`),
 * truncated JSON, a directory, a huge file, invalid UTF-8, a symlink to /dev/zero, a FIFO and a
 * file of someone else are each skipped and reported with the reason; the good lease is listed,
 * with and without the poller's cache, and the orphan finder still runs and carries the problems.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LEASE_FILE_BYTES, writeLeaseFile } from '../../src/lease/lease-file.js';
import { createLeaseFileCache, readLeaseRegistry } from '../../src/lease/registry.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import { ensureStateDir, type StatePaths } from '../../src/state/state-dir.js';
import { makeTempDir } from '../helpers/index.js';

const NOBODY_UID = 65534;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function plantBadFiles(paths: StatePaths): Record<string, RegExp> {
  const at = (name: string) => join(paths.leasesDir, name);
  writeFileSync(at('missing-fields.json'), '{"v":1,"id":"bad"}', { mode: 0o600 });
  writeFileSync(at('truncated.json'), '{"v":1,"id":"lease-t","name":"x","hol', { mode: 0o600 });
  mkdirSync(at('directory.json'), { mode: 0o700 });
  writeFileSync(at('huge.json'), '', { mode: 0o600 });
  truncateSync(at('huge.json'), MAX_LEASE_FILE_BYTES + 1);
  writeFileSync(at('invalid-utf8.json'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), { mode: 0o600 });
  symlinkSync('/dev/zero', at('symlink.json'));
  execFileSync('mkfifo', ['-m', '600', at('fifo.json')]);
  writeFileSync(at('foreign.json'), '{}', { mode: 0o600 });
  chownSync(at('foreign.json'), NOBODY_UID, NOBODY_UID);
  return {
    'missing-fields.json': /not a lease file: name: /,
    'truncated.json': /not valid JSON/,
    'directory.json': /not a regular file|is a directory/,
    'huge.json': /more than 4194304/,
    'invalid-utf8.json': /not valid UTF-8/,
    'symlink.json': /symbolic link/,
    'fifo.json': /not a regular file/,
    'foreign.json': /owned by uid 65534/,
  };
}

function goodLease(paths: StatePaths): void {
  const identity = { pid: process.pid, startTime: '1' };
  writeLeaseFile(paths, {
    v: 1,
    id: 'lease-good',
    name: 'good',
    holder: identity,
    guardian: identity,
    createdAt: new Date().toISOString(),
    subreaper: false,
    runs: [],
  });
}

describe('lease files', () => {
  for (const cached of [false, true]) {
    it(`skips every malformed lease file and reports each one${cached ? ' (through the cache, twice)' : ''}`, () => {
      const home = makeTempDir('tw-lease-files-');
      homes.push(home);
      const paths = ensureStateDir(home);
      goodLease(paths);
      const expected = plantBadFiles(paths);
      const cache = cached ? createLeaseFileCache() : undefined;
      for (let round = 0; round < (cached ? 2 : 1); round += 1) {
        const read = readLeaseRegistry(paths, () => true, cache);
        expect(read.leases.map((status) => status.lease.id)).toEqual(['lease-good']);
        const problems = new Map(read.problems.map(({ path, problem }) => [basename(path), problem]));
        expect([...problems.keys()].sort()).toEqual(Object.keys(expected).sort());
        for (const [name, pattern] of Object.entries(expected)) expect(problems.get(name)).toMatch(pattern);
      }
    });
  }

  it('lets the orphan finder run past them and carries the problems to its caller', () => {
    const home = makeTempDir('tw-lease-files-');
    homes.push(home);
    const paths = ensureStateDir(home);
    goodLease(paths);
    const expected = plantBadFiles(paths);
    const scan = findOrphans({ paths, table: { entries: new Map(), readAtMs: 0 } });
    expect(scan.groups).toEqual([]);
    expect(scan.leaseProblems.map(({ path }) => basename(path)).sort()).toEqual(Object.keys(expected).sort());
  });
});
