/**
 * Leaked trees, found and cleaned: a run recorded as ended whose tree was leaked on purpose (a
 * detached parent with setsid'd children, a cwd-only straggler that carries no cookie, a
 * cookie-only straggler elsewhere), a live run that must not be touched, and a tree nobody
 * registered that was reparented to pid 1.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_SURVIVOR_WAIT_MS, startHolder } from '../../../../test-support/lease-helpers.js';
import { listLeases } from '../../src/lease/registry.js';
import { readLedger } from '../../src/ledger/read.js';
import { cleanOrphans, survivorsOf } from '../../src/orphans/clean-orphans.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import { ensureStateDir, type StatePaths, statePaths } from '../../src/state/state-dir.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import {
  isRunning,
  makeTempDir,
  pollUntil,
  readReportedPids,
  recordPastRun,
  spawnFixture,
  useProcessTracker,
} from '../helpers/index.js';

/** Short grace: the leaked fixtures die on SIGTERM; keeps the suite quick. */
const CLEAN_GRACE_MS = 300;
/** Tree kills re-read /proc several times; on a loaded 2-core box that takes seconds. */
const ORPHAN_TEST_TIMEOUT_MS = 60_000;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function stateHome(): StatePaths {
  const home = makeTempDir('tw-orphans-home-');
  homes.push(home);
  return ensureStateDir(home);
}

describe('orphans', () => {
  const tracker = useProcessTracker();

  it(
    'finds a tree leaked by an ended run, says why, and cleans it',
    async () => {
      const paths = stateHome();
      const runId = `run-leak-${process.pid}-${Date.now()}`;
      const runDir = recordPastRun(paths, runId);
      const liveRunId = `run-live-${process.pid}-${Date.now()}`;
      recordPastRun(paths, liveRunId, { ended: false });
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      tracker.trackEnvMarker(RUN_ID_ENV, liveRunId);
      const tree = spawnFixture(tracker, 'spawn-children.mjs', ['--detached', '2', 'run-forever.mjs', 'leaked'], {
        detached: true,
        cwd: runDir,
        env: { [RUN_ID_ENV]: runId },
      });
      const cwdOnly = spawnFixture(tracker, 'run-forever.mjs', ['cwd-only'], { detached: true, cwd: runDir });
      const cookieOnly = spawnFixture(tracker, 'run-forever.mjs', ['cookie-only'], {
        detached: true,
        env: { [RUN_ID_ENV]: runId },
      });
      const live = spawnFixture(tracker, 'run-forever.mjs', ['live'], {
        detached: true,
        env: { [RUN_ID_ENV]: liveRunId },
      });
      await readReportedPids(tracker, tree.reportFile, 3);
      for (const fixture of [cwdOnly, cookieOnly, live]) await readReportedPids(tracker, fixture.reportFile, 1);
      const [parent] = await readReportedPids(tracker, tree.reportFile, 1, { role: 'parent' });
      const leaked = [tree.pid, ...((parent?.children as number[] | undefined) ?? []), cwdOnly.pid, cookieOnly.pid];

      const scan = findOrphans({ paths });
      // Other tools' leftovers on this shared machine may show up as unregistered; ours is recorded.
      const recorded = scan.groups.filter((candidate) => candidate.kind === 'over');
      expect(recorded.map((candidate) => candidate.runId)).toEqual([runId]);
      const [group] = recorded;
      expect(group?.kind).toBe('over');
      expect(group?.why).toMatch(/run ended \(ok\)/);
      const reasons = new Map(group?.members.map((member) => [member.entry.pid, member.reasons.join('; ')]));
      expect([...reasons.keys()].sort()).toEqual([...leaked].sort());
      expect(reasons.get(tree.pid)).toMatch(/cookie TREEWARDEN_RUN_ID=.*; cwd .* inside run dir/);
      expect(reasons.get(cwdOnly.pid)).toMatch(/^cwd .* inside run dir$/);
      expect(reasons.get(cookieOnly.pid)).toMatch(/^cookie TREEWARDEN_RUN_ID=/);

      const cleaned = await cleanOrphans(scan, { paths, graceMs: CLEAN_GRACE_MS });
      expect(survivorsOf(cleaned)).toEqual([]);
      for (const pid of leaked) expect(isRunning(pid)).toBe(false);
      expect(isRunning(live.pid)).toBe(true);
      const kills = readLedger(paths.ledgerFile).records.filter((record) => record.kind === 'kill');
      expect(kills.length).toBeGreaterThanOrEqual(3);
      expect(kills.every((kill) => kill.kind === 'kill' && kill.reason.startsWith('orphan_clean'))).toBe(true);
      expect(findOrphans({ paths }).groups.filter((candidate) => candidate.kind === 'over')).toEqual([]);
    },
    ORPHAN_TEST_TIMEOUT_MS,
  );

  it(
    'finds a long-lived child left in the session of a dead lease holder',
    async () => {
      const held = await startHolder(tracker, 'run-forever.mjs', ['leased'], 1, ['--direct-child']);
      homes.push(held.home);
      const [helper] = await readReportedPids(tracker, held.fixture.reportFile, 1, { role: 'harness-helper' });
      const helperPid = helper?.pid as number;
      process.kill(held.holderPid, 'SIGKILL');
      const paths = statePaths(held.home);
      await pollUntil(() => listLeases(paths)[0]?.state === 'ended', {
        deadlineMs: NO_SURVIVOR_WAIT_MS,
        description: 'the guardian to end the lease',
      });
      // The guardian ended its run, not the harness's own helper: that one is a leak.
      expect(isRunning(helperPid)).toBe(true);
      const scan = findOrphans({ paths });
      const group = scan.groups.find((candidate) => candidate.leaseId === held.leaseId);
      expect(group?.kind).toBe('over');
      // Named as people named it (lease-holder.mjs opens "matrix"), with the id beside it.
      expect(group?.why).toBe(`lease matrix (${held.leaseId}) ended: its holder died`);
      const member = group?.members.find((candidate) => candidate.entry.pid === helperPid);
      expect(member?.reasons).toEqual([`in the session of dead lease holder ${held.holderPid}`]);
      const cleaned = await cleanOrphans({ ...scan, groups: group ? [group] : [] }, { paths, graceMs: CLEAN_GRACE_MS });
      expect(survivorsOf(cleaned)).toEqual([]);
      expect(isRunning(helperPid)).toBe(false);
    },
    ORPHAN_TEST_TIMEOUT_MS,
  );

  it(
    'finds a tree nobody registered that was reparented to pid 1',
    async () => {
      const paths = stateHome();
      const runId = `run-unknown-${process.pid}-${Date.now()}`;
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      const escaper = spawnFixture(tracker, 'setsid-escape.mjs', ['--exit'], { env: { [RUN_ID_ENV]: runId } });
      const [report] = await readReportedPids(tracker, escaper.reportFile, 1, { role: 'escaper' });
      const escaped = report?.child as number;
      await pollUntil(() => readProcEntry(escaped)?.ppid === 1, {
        description: 'the escaped child to be reparented to pid 1',
      });
      const scan = findOrphans({ paths });
      const group = scan.groups.find((candidate) => candidate.runId === runId);
      expect(group?.kind).toBe('unregistered');
      expect(group?.members.map((member) => member.entry.pid)).toEqual([escaped]);
      // Unregistered groups are only ended on request.
      const skipped = await cleanOrphans({ ...scan, groups: group ? [group] : [] }, { paths, graceMs: CLEAN_GRACE_MS });
      expect(skipped).toEqual([]);
      expect(isRunning(escaped)).toBe(true);
      const cleaned = await cleanOrphans(
        { ...scan, groups: group ? [group] : [] },
        { paths, graceMs: CLEAN_GRACE_MS, includeUnregistered: true },
      );
      expect(survivorsOf(cleaned)).toEqual([]);
      expect(isRunning(escaped)).toBe(false);
    },
    ORPHAN_TEST_TIMEOUT_MS,
  );
});
