/**
 * The membership model over real process tables: the tracker keeps a setsid escape after its
 * parent died and says so; the one-shot query ties a reparented grandchild by cookie and cwd,
 * leaves out kept trees, strangers, the caller and its ancestors; and a pid recycled inside a
 * pid namespace drags none of the stranger's children in.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readRunCookies } from '../../src/membership/cookie.js';
import { describeEvidence } from '../../src/membership/evidence.js';
import { callerLine } from '../../src/membership/exclusions.js';
import { queryMembers } from '../../src/membership/query.js';
import { admitDescendants, createMembership, refreshMembers } from '../../src/membership/tracker.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import { readProcTable } from '../../src/table/linux-proc.js';
import type { ProcessEntry } from '../../src/table/types.js';
import {
  identityOf,
  isRunning,
  pidNamespaceUnavailable,
  pollUntil,
  readReportedPids,
  runInPidNamespace,
  spawnFixture,
  useProcessTracker,
} from '../helpers/index.js';

describe('the tracker over real tables', () => {
  const tracker = useProcessTracker();

  it('keeps a setsid escape after its parent exits, with its evidence, and never the caller', async () => {
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true });
    const [escaped] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'escaped' });
    const escapedPid = escaped?.pid as number;
    const stranger = spawnFixture(tracker, 'run-forever.mjs', [], { detached: true });
    await readReportedPids(tracker, stranger.reportFile, 1);
    const membership = createMembership(identityOf(fixture.pid));
    const first = readProcTable();
    refreshMembers(membership, first);
    admitDescendants(membership, first);
    expect([...membership.members.keys()].sort((a, b) => a - b)).toEqual(
      [fixture.pid, escapedPid].sort((a, b) => a - b),
    );

    // Node emits 'exit' only once it has reaped the child: gone from the table, not a zombie
    // (which stays a member until it is reaped). A poll on /proc passed early once on a busy CI.
    const reaped = once(fixture.child, 'exit');
    process.kill(fixture.pid, 'SIGKILL');
    await reaped;
    const later = readProcTable();
    const { vanished, recycled } = refreshMembers(membership, later);
    for (const member of [...vanished, ...recycled.map(([gone]) => gone)]) membership.members.delete(member.pid);
    admitDescendants(membership, later);
    expect([...membership.members.keys()]).toEqual([escapedPid]);
    const entry = later.entries.get(escapedPid) as ProcessEntry;
    expect(entry.ppid).not.toBe(fixture.pid);
    expect(describeEvidence(membership.members.get(escapedPid)?.evidence ?? never(), { entry })).toEqual([
      `child of pid ${fixture.pid} (node), a member with the same identity when first seen`,
      `its parent exited; reparented to pid ${entry.ppid}, still a member by identity`,
    ]);
    expect(membership.members.has(stranger.pid)).toBe(false);
  });

  it('never admits the caller or its line, even under a member', () => {
    const table = readProcTable();
    const parent = table.entries.get(process.ppid);
    expect(parent).toBeDefined();
    const membership = createMembership(identityOf(process.ppid));
    refreshMembers(membership, table);
    admitDescendants(membership, table);
    expect(membership.members.has(process.pid)).toBe(false);
    expect(callerLine(table.entries).has(process.ppid)).toBe(true);
  });
});

describe('the one-shot query over real tables', () => {
  const tracker = useProcessTracker();

  it('ties a reparented grandchild by cookie and cwd, and leaves out kept trees and strangers', async () => {
    const runId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const leaked = spawnFixture(tracker, 'setsid-escape.mjs', ['--exit'], { env: { [RUN_ID_ENV]: runId } });
    const [escaped] = await readReportedPids(tracker, leaked.reportFile, 1, { role: 'escaped' });
    const grandchild = escaped?.pid as number;
    await pollUntil(() => !isRunning(leaked.pid), { description: 'the grandchild’s parent to exit' });
    const kept = spawnFixture(tracker, 'spawn-children.mjs', ['2', 'run-forever.mjs'], {
      env: { [RUN_ID_ENV]: runId },
      cwd: leaked.dir,
    });
    const [keptReport] = await readReportedPids(tracker, kept.reportFile, 1, { role: 'parent' });
    const keptChildren = (keptReport?.children ?? []) as number[];
    const stranger = spawnFixture(tracker, 'run-forever.mjs');
    await readReportedPids(tracker, stranger.reportFile, 1);

    const table = readProcTable();
    const matches = queryMembers(table, {
      anchors: [{ runId, runDir: leaked.dir }],
      kept: [identityOf(kept.pid)],
      readCookies: readRunCookies,
    });
    const byPid = new Map(matches.map((match) => [match.entry.pid, match]));
    expect([...byPid.keys()]).toEqual([grandchild]);
    expect(byPid.get(grandchild)?.evidence?.map((evidence) => evidence.kind)).toEqual(['run-cookie', 'cwd-in-run-dir']);
    expect(byPid.get(grandchild)?.reasons).toEqual([
      `cookie TREEWARDEN_RUN_ID=${runId}`,
      `cwd ${table.entries.get(grandchild)?.cwd} inside run dir`,
    ]);
    for (const pid of [kept.pid, ...keptChildren, stranger.pid]) expect(byPid.has(pid)).toBe(false);
    expect(keptChildren).toHaveLength(2);
  });

  it('never counts the caller or its ancestors, whatever evidence they carry', async () => {
    const child = spawnFixture(tracker, 'run-forever.mjs', [], { cwd: process.cwd() });
    await readReportedPids(tracker, child.reportFile, 1);
    const table = readProcTable();
    const line = callerLine(table.entries);
    const matches = queryMembers(table, {
      anchors: [{ runId: 'here', runDir: process.cwd() }],
      readCookies: () => null,
    });
    const pids = new Set(matches.map((match) => match.entry.pid));
    expect(pids.has(child.pid)).toBe(true);
    for (const pid of line) expect(pids.has(pid)).toBe(false);
  });
});

/** What membership-reuse-namespace.mjs reports. */
interface MembershipReuseResult {
  readonly reused: boolean;
  readonly rootPid: number;
  readonly memberPid: number;
  readonly staleStart: string;
  readonly strangerStart: string;
  readonly trackedBefore: readonly number[];
  readonly admittedBeforeRefresh: readonly number[];
  readonly recycled: readonly number[];
  readonly queried: readonly { readonly pid: number; readonly reasons: readonly string[] }[];
}

const reason = pidNamespaceUnavailable('membership/tracker.js');

describe('a recycled pid in a pid namespace', () => {
  it.skipIf(reason !== null)(
    `admits none of the stranger's tree, by tracker or by query${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      // The namespace's init is the fixture; when it exits the kernel ends everything inside.
      const result = await runInPidNamespace<MembershipReuseResult>('membership-reuse-namespace.mjs');
      expect(result.reused).toBe(true);
      expect(result.strangerStart).not.toBe(result.staleStart);
      expect(result.trackedBefore).toEqual([result.rootPid, result.memberPid].sort((a, b) => a - b));
      // The stranger on the member's pid, and its child, are never admitted through the stale member.
      expect(result.admittedBeforeRefresh).toEqual([]);
      expect(result.recycled).toEqual([result.memberPid]);
      // The query matches the live recorded root, never the stale identity's pid or its child.
      expect(result.queried).toEqual([{ pid: result.rootPid, reasons: ['recorded identity of the run root'] }]);
    },
  );
});

function never(): never {
  throw new Error('expected a member');
}
