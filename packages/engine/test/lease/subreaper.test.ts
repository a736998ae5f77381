/**
 * The guardian as a Linux child subreaper: a descendant that cleared its environment, left the
 * run directory and was reparented in a moment carries nothing a scan could find, yet it is the
 * guardian's child, so the lease end still ends it. And adopted orphans that die are reaped by
 * pid, so a later run never mistakes an earlier run's zombie for a live process.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertGuardianBuilt,
  LEASE_TEST_TIMEOUT_MS,
  NO_SURVIVOR_WAIT_MS,
  startHolder,
} from '../../../../test-support/lease-helpers.js';
import { openLease } from '../../src/lease/open-lease.js';
import { readRunCookies } from '../../src/membership/cookie.js';
import { findRunMembers } from '../../src/membership/run-members.js';
import { readProcEntry, readProcTable } from '../../src/table/linux-proc.js';
import { isZombie } from '../../src/table/types.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  useProcessTracker,
} from '../helpers/index.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe('lease guardian as a child subreaper', () => {
  const tracker = useProcessTracker();

  it(
    'adopts and ends a daemon that cleared its environment and left the run dir',
    async () => {
      const held = await startHolder(tracker, 'stealth-daemon.mjs', [], 2);
      homes.push(held.home);
      const [stealth] = await readReportedPids(tracker, held.fixture.reportFile, 1, { role: 'stealth' });
      const daemon = readProcEntry(stealth?.pid as number);
      // The escape worked: no cookie, cwd outside the run dir, and adopted by the guardian.
      expect(readRunCookies(daemon?.pid as number)?.runId).toBeUndefined();
      expect(daemon?.cwd).toBe('/');
      await pollUntil(() => readProcEntry(daemon?.pid as number)?.ppid === held.guardianPid, {
        description: 'the daemon to be reparented to the guardian',
      });
      process.kill(-held.holderPid, 'SIGKILL');
      await pollUntil(() => !isRunning(daemon?.pid as number, daemon?.startTime), {
        deadlineMs: NO_SURVIVOR_WAIT_MS,
        description: 'the adopted daemon to be ended by the guardian',
      });
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    "never shows a later run the first run's reaped zombie as alive",
    async () => {
      assertGuardianBuilt();
      const home = makeTempDir('tw-lease-home-');
      homes.push(home);
      const lease = await openLease({ name: 'zombies', stateDir: home, guardianOutput: 'ignore' });
      tracker.trackPid(lease.guardian.pid);
      const reportFile = `${home}/report.jsonl`;
      const env = { [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '60000' };
      try {
        // Run 1 exits at once, leaving a setsid'd child that the guardian adopts; the supervisor
        // ends it as a leftover, so it dies as the guardian's child: a zombie until reaped by pid.
        const first = lease.startRun({
          command: process.execPath,
          args: [fixturePath('setsid-escape.mjs'), '--exit'],
          env,
        });
        const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
        const escaped = escaper?.child as number;
        const firstOutcome = await first.outcome;
        expect(firstOutcome.classification).toBe('ok');
        expect(firstOutcome.leftovers.map((identity) => identity.pid)).toContain(escaped);
        // The guardian reaps the adopted zombie by pid within a couple of reaper ticks.
        await pollUntil(
          () => {
            const entry = readProcEntry(escaped);
            return entry === null || entry.ppid !== lease.guardian.pid;
          },
          { deadlineMs: 10_000, description: "the guardian to reap run 1's adopted zombie" },
        );
        // Membership never counts a zombie: run 1 has no live member whatever the table holds.
        const table = readProcTable();
        const members = findRunMembers(table, {
          anchors: [{ runId: first.id, runDir: first.runDir }],
          adopterPids: new Set([lease.guardian.pid]),
          excludePids: new Set([lease.guardian.pid]),
          readCookies: readRunCookies,
        });
        expect(members.filter((member) => isZombie(member.entry))).toEqual([]);
        expect(members.filter((member) => member.runId === first.id)).toEqual([]);
        const second = lease.startRun({ command: process.execPath, args: ['-e', 'setTimeout(() => {}, 200)'] });
        const secondOutcome = await second.outcome;
        expect(secondOutcome.classification).toBe('ok');
        expect(secondOutcome.survivors).toEqual([]);
        expect(secondOutcome.leftovers).toEqual([]);
      } finally {
        const released = await lease.release();
        expect(released.guardianExited).toBe(true);
      }
    },
    LEASE_TEST_TIMEOUT_MS,
  );
});
