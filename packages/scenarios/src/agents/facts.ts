/**
 * What an agent-leak driver found, handed to the scenario's checks (kept per scenario context:
 * the checks run after the driver returned), and the checks every agent-leak scenario shares.
 */
import {
  type AgentLeak,
  type AgentObservation,
  type CleanedLeak,
  type LiveSession,
  readProcTable,
} from '@treewarden/engine';
import type { DriverTools, ScenarioCheck, ScenarioContext, ScenarioEvidence, ScenarioOutcomeFacts } from '../types.js';
import type { FakeSession } from './cast.js';
import { agentOutcomeFacts } from './drive-outcome.js';
import { type CastMember, commandLineOf, describePreview, previewPkill } from './pkill-preview.js';

export interface Identity {
  readonly pid: number;
  readonly startTime: string;
}

export interface AgentLeakFacts {
  readonly doomed: FakeSession;
  /** The doomed session's members and roles, as the engine recognised them while it lived. */
  readonly doomedRoles: readonly { readonly pid: number; readonly role: string }[];
  readonly leak: AgentLeak;
  /** The live session's root and members. */
  readonly liveIdentities: readonly Identity[];
  readonly unrelated: Identity | null;
  /** Pids of the leaks the engine found for other sessions (must hold none of the cast's innocents). */
  readonly leakedInOtherSessions: readonly number[];
  /** Scenario-specific looks at the leak (before, and in Treewarden mode after, the clean-up). */
  readonly probes: readonly ScenarioCheck[];
  /** Treewarden mode: the engine's clean-up report; null in naive mode. */
  readonly cleaned: CleanedLeak | null;
  /** Treewarden mode: who was alive right after the clean-up. */
  readonly afterClean?: {
    readonly leakedAlive: readonly number[];
    readonly liveAlive: readonly number[];
    readonly unrelatedAlive: boolean;
  };
}

/** What a driver found before anyone ended anything: the facts every agent-leak driver records. */
export interface LeakFindings {
  /** Shared, not copied: a driver adds its after-clean-up probes to the same list. */
  readonly probes: ScenarioCheck[];
  readonly doomed: FakeSession;
  readonly doomedSession: LiveSession;
  readonly liveSession: LiveSession;
  readonly leak: AgentLeak;
  readonly unrelated: Identity | null;
  /** The engine's look after the doomed root died (its other leaks must hold no innocent). */
  readonly after: AgentObservation;
}

export function leakFactsBase(found: LeakFindings): Omit<AgentLeakFacts, 'cleaned'> {
  const { doomedSession, liveSession, after } = found;
  return {
    probes: found.probes,
    doomed: found.doomed,
    doomedRoles: doomedSession.members.map((member) => ({ pid: member.entry.pid, role: member.role })),
    leak: found.leak,
    liveIdentities: [liveSession.root, ...liveSession.members.map((member) => member.entry)].map((entry) => ({
      pid: entry.pid,
      startTime: entry.startTime,
    })),
    unrelated: found.unrelated,
    leakedInOtherSessions: after.leaks
      .filter((other) => other.sessionId !== doomedSession.id)
      .flatMap((other) => other.processes.map(({ entry }) => entry.pid)),
  };
}

/** Naive mode: what each `pkill -f PATTERN` would hit in the live table, computed and never run. */
export function naiveOutcome(
  ctx: ScenarioContext,
  tools: DriverTools,
  run: {
    readonly startedAt: number;
    readonly patterns: readonly string[];
    readonly cast: readonly CastMember[];
    readonly scenarioPids: ReadonlySet<number>;
    readonly base: Omit<AgentLeakFacts, 'cleaned'>;
  },
): ScenarioOutcomeFacts {
  const table = readProcTable();
  const pkill = run.patterns.map((pattern) => previewPkill(pattern, table, run.cast, run.scenarioPids));
  for (const preview of pkill) tools.step(`naive (computed, never run): ${describePreview(preview)}`);
  recordFacts(ctx, { ...run.base, cleaned: null });
  return agentOutcomeFacts(run.startedAt, null, run.cast, pkill);
}

const recorded = new WeakMap<ScenarioContext, AgentLeakFacts>();

export function recordFacts(ctx: ScenarioContext, facts: AgentLeakFacts): void {
  recorded.set(ctx, facts);
}

export function factsOf(evidence: ScenarioEvidence): AgentLeakFacts {
  const facts = recorded.get(evidence.ctx);
  if (facts === undefined) throw new Error('the agent-leak driver recorded no facts');
  return facts;
}

export function castOf(leak: AgentLeak, live: LiveSession, unrelated: Identity | null, label: string): CastMember[] {
  const member = (entry: LiveSession['root'], role: CastMember['role']): CastMember => ({
    pid: entry.pid,
    startTime: entry.startTime,
    role,
    command: commandLineOf(entry),
  });
  return [
    ...leak.processes.map(({ entry }) => member(entry, 'leaked')),
    member(live.root, 'live-session-root'),
    ...live.members.map(({ entry }) => member(entry, 'live-session-member')),
    ...(unrelated === null
      ? []
      : [{ ...unrelated, role: 'unrelated' as const, command: `run-forever.mjs unrelated --name ${label}` }]),
  ];
}

function check(name: string, ok: boolean, detail: string): ScenarioCheck {
  return { name, ok, detail };
}

/** The leak holds the pids of these roles (from the doomed session's own reports). */
export function leakHoldsCheck(facts: AgentLeakFacts, role: string, name: string): ScenarioCheck {
  const wanted = facts.doomed.reports.filter((report) => report.role === role).map((report) => report.pid);
  const leaked = new Set(facts.leak.processes.map(({ entry }) => entry.pid));
  const missing = wanted.filter((pid) => !leaked.has(pid));
  return check(
    name,
    wanted.length > 0 && missing.length === 0,
    missing.length === 0
      ? `${role}: ${wanted.join(' ')} judged leaked`
      : `${role} ${missing.join(' ')} not judged leaked`,
  );
}

/** Checks every agent-leak scenario makes in Treewarden mode. */
export function treewardenChecks(facts: AgentLeakFacts): ScenarioCheck[] {
  const after = facts.afterClean;
  const leaked = facts.leak.processes.map(({ entry }) => entry.pid);
  const innocents = new Set([...facts.liveIdentities.map((i) => i.pid), facts.unrelated?.pid ?? -1]);
  const wronglyJudged = [...leaked, ...facts.leakedInOtherSessions].filter((pid) => innocents.has(pid));
  return [
    check(
      'the live session and the unrelated process were never judged leaked',
      wronglyJudged.length === 0,
      wronglyJudged.length === 0 ? `leak: ${leaked.join(' ')}` : `wrongly judged: ${wronglyJudged.join(' ')}`,
    ),
    check(
      'the engine ended exactly the leaked members',
      after !== undefined &&
        leaked.length > 0 &&
        after.leakedAlive.length === 0 &&
        facts.cleaned?.survivors.length === 0,
      after === undefined
        ? 'no clean-up ran'
        : `${leaked.length} ended; still alive: ${after.leakedAlive.join(' ') || 'none'}`,
    ),
    check(
      'the live session was left alone',
      after !== undefined && after.liveAlive.length === facts.liveIdentities.length,
      `${after?.liveAlive.length ?? 0} of ${facts.liveIdentities.length} (root and members) alive after the clean-up`,
    ),
    check(
      'the unrelated marker-less process was left alone',
      after?.unrelatedAlive === true,
      `${facts.unrelated?.pid ?? '?'} ${after?.unrelatedAlive === true ? 'alive' : 'GONE'} after the clean-up`,
    ),
  ];
}

/** Naive mode: the pkill patterns would hit innocents, or miss leaked members (the demo happened). */
export function naiveChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  return (evidence.outcome.pkill ?? []).map((preview) =>
    check(
      `${preview.command} is safe`,
      preview.innocents.length === 0 && preview.leakedMissed.length === 0,
      `would hit innocent ${preview.innocents.map((m) => `${m.pid} (${m.role})`).join(', ') || 'none'}; would miss leaked ${preview.leakedMissed.join(' ') || 'none'}`,
    ),
  );
}
