/**
 * What the user asked to keep is never a SessionEnd reaper target: runs started with
 * `keepAfterLease` (the MCP server's `keepAfterSession`), the guardian supervising them, and
 * released descendants (`keepDescendants`), each with its subtree; a run not kept is not spared.
 * Real processes, real lease files in a temp state dir.
 */
import { describe, expect, it } from 'vitest';
import { identityOf, spawnFixture, useProcessTracker } from '../../../../test-support/index.js';
import { keptPids } from '../../src/agents/hooks/kept-trees.js';
import { type LeaseFile, writeLeaseFile } from '../../src/lease/lease-file.js';
import { ensureStateDir } from '../../src/state/state-dir.js';
import { readProcTable } from '../../src/table/linux-proc.js';
import { makeTempDir } from '../helpers/index.js';

const tracker = useProcessTracker();

function forever(role: string): number {
  return spawnFixture(tracker, 'run-forever.mjs', [role], { detached: true }).pid;
}

describe('kept trees', () => {
  it('spares kept runs, their guardian and released descendants, not the runs of the session', () => {
    const paths = ensureStateDir(makeTempDir());
    const [guardian, kept, released, sessionRun, sessionGuardian] = [
      'guardian',
      'kept-run',
      'released',
      'session-run',
      'session-guardian',
    ].map(forever) as [number, number, number, number, number];
    const now = new Date().toISOString();
    const run = (pid: number, id: string) => ({
      runId: id,
      runDir: `/nonexistent/${id}`,
      command: 'x',
      ...identityOf(pid),
      startedAt: now,
    });
    const lease = (id: string, guardianPid: number, runs: LeaseFile['runs']): LeaseFile => ({
      v: 1,
      id,
      name: id,
      holder: identityOf(process.pid),
      guardian: identityOf(guardianPid),
      createdAt: now,
      subreaper: false,
      runs,
    });
    writeLeaseFile(paths, lease('kept', guardian, [{ ...run(kept, 'r1'), keepAfterLease: true }]));
    writeLeaseFile(
      paths,
      lease('session', sessionGuardian, [{ ...run(sessionRun, 'r2'), kept: [identityOf(released)] }]),
    );
    const spared = keptPids(paths.root, readProcTable());
    for (const pid of [guardian, kept, released]) expect(spared.has(pid), `spared ${pid}`).toBe(true);
    for (const pid of [sessionRun, sessionGuardian]) expect(spared.has(pid), `not spared ${pid}`).toBe(false);
  });
});
