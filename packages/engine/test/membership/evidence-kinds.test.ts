/**
 * Each kind of evidence is one entry of `EVIDENCE_KINDS` holding both its admission rule and its
 * words: proven at compile time (a rule set missing a kind or a description does not type-check)
 * and at run time (every kind admits a real process with evidence of its own kind, and describes
 * it). Start times read as wall-clock time, with the tick value kept for the identity.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readRunCookies } from '../../src/membership/cookie.js';
import {
  type AdmissionScope,
  admitBy,
  describeEvidence,
  EVIDENCE_KINDS,
  type EvidenceKind,
  type EvidenceRules,
} from '../../src/membership/evidence.js';
import { describeStart, systemStartClock } from '../../src/membership/start-clock.js';
import { LEASE_ID_ENV, RUN_ID_ENV } from '../../src/run/types.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { identityOf, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

const KINDS = Object.keys(EVIDENCE_KINDS) as EvidenceKind[];

/** A scope that knows nothing: no kind may admit anything through it. */
function emptyScope(): AdmissionScope {
  return {
    root: null,
    anchors: [],
    runs: new Map(),
    leaseIds: new Set(),
    adopterPids: new Set(),
    deadSessions: new Map(),
    seen: 'tracked',
    cgroupOf: () => null,
    cookiesOf: () => null,
    parentOf: () => null,
  };
}

describe('evidence kinds', () => {
  const tracker = useProcessTracker();

  it('cannot be declared without their description or their admission rule', () => {
    const { describe: _words, ...withoutWords } = EVIDENCE_KINDS['run-cookie'];
    const { admit: _rule, ...withoutRule } = EVIDENCE_KINDS['cwd-in-run-dir'];
    const { 'adopted-by-guardian': _kind, ...withoutKind } = EVIDENCE_KINDS;
    // @ts-expect-error a kind whose description is missing is not a rule
    const noWords: EvidenceRules = { ...EVIDENCE_KINDS, 'run-cookie': withoutWords };
    // @ts-expect-error a kind whose admission rule is missing is not a rule
    const noRule: EvidenceRules = { ...EVIDENCE_KINDS, 'cwd-in-run-dir': withoutRule };
    // @ts-expect-error a kind of the union without an entry
    const noKind: EvidenceRules = withoutKind;
    expect([noWords, noRule, noKind].every((rules) => Object.keys(rules).length >= KINDS.length - 1)).toBe(true);
  });

  it('each admit a real process with evidence of their own kind, and say it in words', async () => {
    const runId = randomUUID();
    const leaseId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const fixture = spawnFixture(tracker, 'run-forever.mjs', [], {
      env: { [RUN_ID_ENV]: runId, [LEASE_ID_ENV]: leaseId },
    });
    await readReportedPids(tracker, fixture.reportFile, 1);
    const entry = readProcEntry(fixture.pid) as ProcessEntry;
    const identity = identityOf(fixture.pid);
    const self = identityOf(process.pid);
    const anchor = { runId, leaseId, runDir: fixture.dir, root: identity };
    const scope: AdmissionScope = {
      root: identity,
      anchors: [anchor],
      runs: new Map([[runId, anchor]]),
      leaseIds: new Set([leaseId]),
      adopterPids: new Set([process.pid]),
      deadSessions: new Map([[entry.sid, { leaseId, holder: self }]]),
      seen: 'tracked',
      // Placement in a real cgroup is tested in orphans/cgroup-leaks.test.ts and run/cgroup.test.ts.
      cgroupOf: (pid) => (pid === fixture.pid ? { runId, leaseId, path: `/sys/fs/cgroup/treewarden/${runId}` } : null),
      cookiesOf: readRunCookies,
      parentOf: (child) =>
        child.ppid === process.pid ? { ...self, command: 'node', runId: null, leaseId: null } : null,
    };
    for (const kind of KINDS) {
      const admitted = admitBy(kind, entry, scope);
      expect(admitted.length, `${kind} admits the process`).toBeGreaterThan(0);
      for (const evidence of admitted) {
        expect(evidence.kind).toBe(kind);
        const words = describeEvidence(evidence, { entry });
        expect(words.length, `${kind} says why`).toBeGreaterThan(0);
        expect(words.every((line) => line.length > 0)).toBe(true);
      }
      expect(admitBy(kind, entry, emptyScope()), `${kind} without its facts`).toEqual([]);
    }
    const [root] = admitBy('root', entry, scope);
    const clock = systemStartClock();
    expect(clock).not.toBeNull();
    expect(describeEvidence(root as NonNullable<typeof root>, { entry })).toEqual([
      `the run's root: the process this run started (pid ${entry.pid}, start ${new Date(entry.startedAtMs).toISOString()} (${entry.startTime}))`,
    ]);
  });
});

describe('start times in words', () => {
  it('are wall-clock time with the ticks in parentheses when a boot time is known', () => {
    const clock = { bootTimeMs: Date.UTC(2026, 10, 30, 20, 0, 0), ticksPerSecond: 100 };
    expect(describeStart('123456', clock)).toBe('2026-11-30T20:20:34.560Z (123456)');
  });

  it('stay as they are without a clock or when they are not ticks (macOS lstart)', () => {
    expect(describeStart('123456', null)).toBe('123456');
    const clock = { bootTimeMs: 1, ticksPerSecond: 100 };
    expect(describeStart('Mon Nov 30 20:00:00 2026', clock)).toBe('Mon Nov 30 20:00:00 2026');
  });
});
