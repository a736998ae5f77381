/**
 * The scenario contract: one definition per runaway-worker scenario, used by the CLI
 * (`treewarden scenario`), the desktop app's launcher (through packages/host) and the engine's
 * tests. A definition says what goes wrong, what a naive tool does, what Treewarden does, what
 * outcome to expect, and the hard bounds the scenario must stay within.
 */
import type { Classification, KillTimelineEntry, Run, RunLimits, RunSpec } from '@treewarden/engine';
import type { CastMember, PkillPreview } from './agents/pkill-preview.js';

export interface ScenarioExpectation {
  readonly classification: Classification;
  /** After the scenario (and, in naive mode, after the engine's cleanup) no process of it is alive. */
  readonly nothingSurvives: boolean;
}

/** Hard caps: past either, the scenario's watchdog ends everything it started and the scenario fails. */
export interface ScenarioBounds {
  /** Most live processes carrying the scenario's cookie at any one time. */
  readonly maxProcesses: number;
  /** Wall time from start to the end of the outcome (cleanup has its own bound). */
  readonly maxMs: number;
}

/**
 * How the naive tool ends the worker: `direct-child` sends SIGTERM to the pid it spawned and
 * nothing else (what `child.kill()` does); `tree-walk` walks the ppid tree from the root at kill
 * time, as `tree-kill` does, so it misses everything reparented away; `in-worker` means the naive
 * behaviour lives inside the scenario's own driver (the worker gets `ctx.mode`).
 */
export type NaiveStrategy = 'direct-child' | 'tree-walk' | 'in-worker';

export type ScenarioMode = 'treewarden' | 'naive';

/** What a scenario's worker needs to know about where and how it runs. */
export interface ScenarioContext {
  readonly mode: ScenarioMode;
  /** The run cookie (`TREEWARDEN_RUN_ID`), known before launch. */
  readonly runId: string;
  /** The scenario's private directory (mkdtemp); the worker's cwd. */
  readonly dir: string;
  /** Fixture processes append one JSON line each to this file (TREEWARDEN_FIXTURE_REPORT). */
  readonly reportFile: string;
  /** Epoch ms at which the scenario started (before launch). */
  readonly startedAtMs: number;
  /**
   * Environment for every process the scenario starts (report file, lifetime caps, and what makes
   * `node` run scripts as Node under Electron); no cookie.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The command that runs a fixture script as Node here (under Electron: the app binary). */
  readonly node: string;
  /** Absolute path of a fixture script (packages/scenarios/fixtures, else the engine's shared set). */
  fixture(name: string): string;
}

/** The worker as a run spec without the parts the runner fills in (cwd, cookie, env basics). */
export interface WorkerPlan {
  readonly command: string;
  readonly args: readonly string[];
  readonly timeoutSeconds: number;
  readonly graceSeconds?: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly output?: RunSpec['output'];
  /** Runaway limits under Treewarden; the naive tool has only the timeout. */
  readonly limits?: RunLimits;
}

/** A fixture report (`{"role","pid","ppid",...}`), as fixtures write them. */
export interface FixtureReport {
  readonly role: string;
  readonly pid: number;
  readonly ppid?: number;
  readonly [extra: string]: unknown;
}

/** One scenario-specific assertion, evaluated after the scenario ended. */
export interface ScenarioCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Everything a check can look at once the scenario's run is over. */
export interface ScenarioEvidence {
  readonly ctx: ScenarioContext;
  readonly outcome: ScenarioOutcomeFacts;
  readonly reports: readonly FixtureReport[];
  /** Every process the census saw during the scenario. */
  readonly seen: readonly SeenProcess[];
}

/** The part of an outcome scenarios compare: a RunOutcome, or what a custom driver determined. */
export interface ScenarioOutcomeFacts {
  readonly classification: Classification | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdoutTail: string;
  readonly stderrTail: string;
  readonly durationMs: number;
  readonly killTimeline: readonly KillTimelineEntry[];
  readonly leftovers: number;
  readonly error?: string;
  /** Agent-leak scenarios: who is who among the processes the scenario started. */
  readonly cast?: readonly CastMember[];
  /** Agent-leak scenarios, naive mode: what each `pkill -f` users post would have hit (never run). */
  readonly pkill?: readonly PkillPreview[];
}

/** A process the census saw carrying the cookie (or working inside the scenario dir). */
export interface SeenProcess {
  readonly pid: number;
  readonly startTime: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly command: string;
  readonly firstSeenMs: number;
  /** Seen as a zombie at some point (every killed process is one until its parent reaps it). */
  readonly zombie: boolean;
  /** When a zombie whose parent was itself a live scenario member was seen: that parent. */
  readonly unreapedBy: number | null;
}

/** A custom driver for scenarios that are not one supervised run (harness death, pid reuse). */
export type ScenarioDriver = (ctx: ScenarioContext, tools: DriverTools) => Promise<ScenarioOutcomeFacts>;

export interface DriverTools {
  readonly step: (text: string) => void;
  /** Starts a run under the engine (or the caller's lease), tracked for interruption. */
  readonly startRun: (spec: RunSpec) => Run;
  /** Resolves once at least `count` reports with `role` exist, or null after `timeoutMs`. */
  readonly waitForReports: (role: string, count: number, timeoutMs: number) => Promise<FixtureReport[] | null>;
  /** Aborted when the scenario is interrupted or over its bounds. */
  readonly signal: AbortSignal;
}

export interface ScenarioDefinition {
  readonly name: string;
  readonly title: string;
  /** One paragraph: the failure this scenario shows. */
  readonly explanation: string;
  /** What a naive tool does wrong here. */
  readonly naiveFailure: string;
  /** What Treewarden does instead. */
  readonly treewardenFix: string;
  readonly expected: ScenarioExpectation;
  readonly bounds: ScenarioBounds;
  readonly naive: NaiveStrategy;
  /** false: the naive tool never reads the worker's stdout (a full pipe blocks the worker). */
  readonly naiveReadsOutput?: boolean;
  /** null when the scenario can run here, else why not (shown, and the scenario is skipped). */
  readonly unavailableReason?: () => string | null;
  /** The worker to supervise (ignored when `drive` is given). */
  readonly worker?: (ctx: ScenarioContext) => WorkerPlan;
  readonly drive?: ScenarioDriver;
  /** Scenario-specific checks beyond classification and survivors. */
  readonly check?: (evidence: ScenarioEvidence) => ScenarioCheck[] | Promise<ScenarioCheck[]>;
}
