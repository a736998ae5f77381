/**
 * The runs this MCP server started, under one lease it opens on the first start (a session that
 * never starts anything never spawns a guardian). The lease is named after the agent session, so
 * the app shows the runs under it; it ends with this server: release on a clean shutdown, the
 * guardian's sweep when the server dies by any signal.
 */
import {
  type Lease,
  type LeaseRun,
  openLease,
  type ProcessIdentity,
  type RunOutcome,
  type RunSpec,
  withDeadline,
} from '@treewarden/engine';
import { type AgentIdentity, withoutAgentMarkers } from './agent-identity.js';
import { createOutputLog, type OutputLog } from './output-log.js';

/** The holder label every MCP lease carries (the app and `orphans` show it). */
export const MCP_HOLDER_LABEL = 'mcp';
/**
 * At the session's end, how long the runs' own tree kills may take before the lease's release
 * (which ends whatever is left, with its own bound) goes ahead anyway.
 */
export const SESSION_END_WAIT_MS = 20_000;

export interface SessionRun {
  readonly id: string;
  readonly run: LeaseRun;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly startedAtMs: number;
  readonly keepAfterSession: boolean;
  readonly output: OutputLog;
  /** The owned tree as last reported by the guardian (the root until the first report). */
  members(): readonly ProcessIdentity[];
  /** Set once the run ended. */
  outcome(): RunOutcome | null;
}

export interface SessionRuns {
  readonly agent: AgentIdentity;
  start(spec: RunSpec & { readonly keepAfterSession: boolean }): Promise<SessionRun>;
  get(runId: string): SessionRun | undefined;
  list(): readonly SessionRun[];
  /**
   * Ends the session: every run not kept is cancelled with `why` (its ledger record says it), then
   * the lease is released (bounded by the engine's RELEASE_WAIT_MS). Idempotent.
   */
  close(why: string): Promise<void>;
}

export function createSessionRuns(agent: AgentIdentity, stateDir?: string): SessionRuns {
  const runs = new Map<string, SessionRun>();
  const leases = {
    session: lazyLease(agent.leaseName, process.env, stateDir),
    kept: lazyLease(`${agent.leaseName} · kept`, withoutAgentMarkers(process.env), stateDir),
  };
  let closing: Promise<void> | null = null;

  return {
    agent,
    async start(spec) {
      if (closing !== null) throw new Error('this MCP server is shutting down; it starts nothing more');
      const { keepAfterSession, ...runSpec } = spec;
      // Kept runs outlive the session on purpose: a lease of their own, and no agent markers in
      // their environment, so no one ever judges them leaked members of the ended session.
      const held = await (keepAfterSession ? leases.kept : leases.session).get();
      const run = held.startRun({
        ...runSpec,
        output: 'capture',
        ...(keepAfterSession ? { keepAfterLease: true } : {}),
      });
      const sessionRun = track(run, spec, keepAfterSession);
      runs.set(run.id, sessionRun);
      return sessionRun;
    },
    get: (runId) => runs.get(runId),
    list: () => [...runs.values()],
    close(why) {
      closing ??= (async () => {
        const ending = [...runs.values()].filter((entry) => !entry.keepAfterSession && entry.outcome() === null);
        for (const entry of ending) entry.run.cancel(`agent session ended: ${why}`);
        await withDeadline(
          Promise.all(ending.map((entry) => entry.run.outcome)),
          SESSION_END_WAIT_MS,
          'the runs ending',
        ).catch(() => {});
        // The kept lease's guardian outlives this server (it supervises its runs to their end), so
        // its release is handed over, not awaited: the server exits and the guardian carries on.
        void leases.kept.release();
        await leases.session.release();
      })();
      return closing;
    },
  };
}

interface LazyLease {
  get(): Promise<Lease>;
  /** Releases the lease if it was ever opened. */
  release(): Promise<void>;
}

/** A lease opened on first use (a session that never starts anything never spawns a guardian). */
function lazyLease(name: string, environment: NodeJS.ProcessEnv, stateDir: string | undefined): LazyLease {
  let lease: Promise<Lease> | null = null;
  return {
    get() {
      lease ??= openLease({
        name,
        holder: MCP_HOLDER_LABEL,
        // The runs' output belongs to the agent's reads, never to this process's stdout (the protocol).
        guardianOutput: 'ignore',
        environment: definedOnly(environment),
        ...(stateDir === undefined ? {} : { stateDir }),
      });
      // A failed open must not poison the next try.
      lease.catch(() => {
        lease = null;
      });
      return lease;
    },
    async release() {
      const held = await lease?.catch(() => null);
      await held?.release();
    },
  };
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value;
  return defined;
}

function track(run: LeaseRun, spec: RunSpec, keepAfterSession: boolean): SessionRun {
  const output = createOutputLog();
  let members: readonly ProcessIdentity[] = [];
  let ended: RunOutcome | null = null;
  run.subscribe((event) => {
    if (event.type === 'output') output.append(event.text);
    else if (event.type === 'members') members = event.members;
  });
  void run.outcome.then((outcome) => {
    ended = outcome;
  });
  return {
    id: run.id,
    run,
    command: [spec.command, ...(spec.args ?? [])],
    cwd: spec.cwd ?? process.cwd(),
    startedAtMs: Date.now(),
    keepAfterSession,
    output,
    members: () => (members.length > 0 ? members : run.identity === null ? [] : [run.identity]),
    outcome: () => ended,
  };
}
