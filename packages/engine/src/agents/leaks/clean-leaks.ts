/**
 * Ends agent leaks with the engine's revalidated tree kill (graceful signal, grace, SIGKILL,
 * verify), one kill per leaked subtree root, each recorded in the ledger. The kill re-reads the
 * table and refuses a root whose start time changed. A subtree that now holds a process the leak
 * did not name (a live session's, or a stranger's) is refused whole, before anything is signalled.
 */

import { type EndReport, endMembers, type KillTreeFn } from '../../ending/end-members.js';
import { killTree } from '../../kill/kill-tree.js';
import type { KillResult } from '../../kill/types.js';
import type { MemberMatch } from '../../membership/run-members.js';
import { readProcTable } from '../../table/linux-proc.js';
import { indexChildren } from '../../table/trees.js';
import { isZombie, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { AgentStopReport } from './agent-stop.js';
import type { AgentLeak } from './find-leaks.js';

export interface ProcessCleanReport {
  readonly pid: number;
  readonly startTime: string;
  /** `killed`/`already_gone`/`kill_failed`/`refused` from the tree kill of its subtree root, or `error`. */
  readonly result: KillResult | 'error';
  readonly detail?: string;
}

export interface CleanedLeak {
  readonly leak: AgentLeak;
  readonly processes: readonly ProcessCleanReport[];
  /** Identities still alive after the kill. */
  readonly survivors: readonly number[];
  /** The agent's own stop calls tried first (`claude stop ID`), when its rule has one. */
  readonly agentStops?: readonly AgentStopReport[];
}

export interface CleanLeaksOptions {
  readonly ledgerFile?: string;
  readonly graceMs?: number;
  readonly killTree?: KillTreeFn;
  readonly readTable?: () => ProcessTable;
  /** The ledger's reason word; default `agent_leak_clean` (the SessionEnd reaper: `agent_session_end`; trim: `session_trim KIND`). */
  readonly reason?: string;
  /**
   * The agent's own way to end the leak's sessions, tried first (agent-stop.ts `stopWithAgent`):
   * whatever it leaves, or ends of something else, the revalidated kill still decides.
   */
  readonly stopFirst?: (leak: AgentLeak) => Promise<readonly AgentStopReport[]>;
}

function strangersUnder(root: number, named: ReadonlySet<number>, table: ProcessTable): number[] {
  const children = indexChildren(table.entries);
  const strangers: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    const entry = table.entries.get(pid);
    if (entry === undefined || entry.state === 'Z') continue;
    if (!named.has(pid)) strangers.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return strangers;
}

/** The named process as it still is in `table` (same identity, not a zombie), or undefined. */
function liveEntry(table: ProcessTable, pid: number, startTime: string): ProcessEntry | undefined {
  const entry = table.entries.get(pid);
  return entry !== undefined && entry.startTime === startTime && !isZombie(entry) ? entry : undefined;
}

/** Why a named process is no target any more: exited, or its pid now holds another process. */
function goneDetail(table: ProcessTable, pid: number): string {
  const entry = table.entries.get(pid);
  if (entry === undefined) return 'exited before the clean';
  return isZombie(entry) ? 'exited before the clean (a zombie)' : 'its pid now holds another process';
}

/**
 * One pass over the named processes still alive in `table`: a kill per subtree root as the table
 * shows the trees now (a root that exited since the leak was found left its children reparented,
 * each then its own root), refusing a subtree that holds a process the leak did not name.
 */
async function endLiveSubtrees(
  leak: AgentLeak,
  alive: ReadonlyMap<number, ProcessEntry>,
  table: ProcessTable,
  options: CleanLeaksOptions,
): Promise<Map<number, ProcessCleanReport>> {
  const named = new Set(leak.processes.map((process) => process.entry.pid));
  const reasons = new Map(leak.processes.map((process) => [process.entry.pid, process.reasons]));
  const matches: MemberMatch[] = [...alive.values()].map((entry) => ({
    entry,
    runId: null,
    leaseId: null,
    reasons: [
      `${options.reason === undefined ? 'agent leak of' : 'session'} ${leak.sessionId}`,
      ...(reasons.get(entry.pid) ?? []),
    ],
  }));
  const roots = matches.filter((match) => !alive.has(match.entry.ppid));
  const refused = new Map<number, string>();
  for (const root of roots) {
    const strangers = strangersUnder(root.entry.pid, named, table);
    if (strangers.length > 0)
      refused.set(root.entry.pid, `its tree now holds processes the leak did not name: ${strangers.join(' ')}`);
  }
  const targets = matches.filter((match) => !refused.has(match.entry.pid) && !alive.has(match.entry.ppid));
  const reports = await endMembers(targets, {
    killTree: options.killTree ?? killTree,
    reason: options.reason ?? 'agent_leak_clean',
    ...(options.ledgerFile !== undefined ? { ledgerFile: options.ledgerFile } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  return reportFor([...alive.values()], reports, refused);
}

function reportFor(
  alive: readonly ProcessEntry[],
  reports: readonly EndReport[],
  refused: ReadonlyMap<number, string>,
): Map<number, ProcessCleanReport> {
  const byRoot = new Map(reports.map((report) => [report.root.entry.pid, report]));
  const parentOf = new Map(alive.map((entry) => [entry.pid, entry.ppid]));
  const rootOf = (pid: number): number => {
    let current = pid;
    for (let hops = 0; hops < alive.length && parentOf.has(parentOf.get(current) ?? -1); hops += 1)
      current = parentOf.get(current) as number;
    return current;
  };
  const byPid = new Map<number, ProcessCleanReport>();
  for (const entry of alive) {
    const identity = { pid: entry.pid, startTime: entry.startTime };
    const root = rootOf(entry.pid);
    const refusal = refused.get(root);
    const report = byRoot.get(root);
    const outcome = report?.outcome ?? null;
    if (refusal !== undefined) byPid.set(entry.pid, { ...identity, result: 'refused', detail: refusal });
    else if (outcome === null)
      byPid.set(entry.pid, { ...identity, result: 'error', detail: report?.error ?? 'not attempted' });
    else {
      const survived = outcome.survivors.some((s) => s.pid === entry.pid && s.startTime === entry.startTime);
      const result: KillResult = survived
        ? 'kill_failed'
        : outcome.result === 'kill_failed'
          ? 'killed'
          : outcome.result;
      byPid.set(entry.pid, { ...identity, result, ...(outcome.error ? { detail: outcome.error } : {}) });
    }
  }
  return byPid;
}

/**
 * A named process whose pid now holds another process makes the leak's record of that subtree
 * stale: it and everything named under it (by the leak's parent links) are refused, never killed
 * as roots of their own. Only a process that exited lets its children stand on their own.
 */
function refuseChangedSubtrees(leak: AgentLeak, table: ProcessTable): Map<number, ProcessCleanReport> {
  const refused = new Map<number, ProcessCleanReport>();
  const changed = leak.processes.filter(({ entry }) => {
    const now = table.entries.get(entry.pid);
    return now !== undefined && now.startTime !== entry.startTime;
  });
  for (const { entry: top } of changed) {
    const detail = `pid ${top.pid} now holds another process (start time changed): its subtree is refused`;
    const under = new Set([top.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const { entry } of leak.processes)
        if (!under.has(entry.pid) && under.has(entry.ppid)) {
          under.add(entry.pid);
          grew = true;
        }
    }
    for (const { entry } of leak.processes)
      if (under.has(entry.pid))
        refused.set(entry.pid, { pid: entry.pid, startTime: entry.startTime, result: 'refused', detail });
  }
  return refused;
}

/** A report that says the process ended. */
const saysEnded = (report: ProcessCleanReport) => report.result === 'killed' || report.result === 'already_gone';

/** The named processes alive in `table`, by pid (their identities as the leak named them). */
function aliveIn(leak: AgentLeak, table: ProcessTable, among?: ReadonlySet<number>): Map<number, ProcessEntry> {
  const alive = new Map<number, ProcessEntry>();
  for (const { entry } of leak.processes) {
    if (among !== undefined && !among.has(entry.pid)) continue;
    const now = liveEntry(table, entry.pid, entry.startTime);
    if (now !== undefined) alive.set(now.pid, now);
  }
  return alive;
}

/** The agent's stop calls, and which named processes were alive (by identity) before them. */
async function stopFirst(
  leak: AgentLeak,
  stop: NonNullable<CleanLeaksOptions['stopFirst']>,
  readTable: () => ProcessTable,
): Promise<{ reports: readonly AgentStopReport[]; aliveBefore: ReadonlySet<number> }> {
  const aliveBefore = new Set(aliveIn(leak, readTable()).keys());
  let reports: readonly AgentStopReport[];
  try {
    reports = await stop(leak);
  } catch (error) {
    reports = [{ command: [], result: 'failed', detail: error instanceof Error ? error.message : String(error) }];
  }
  return { reports, aliveBefore };
}

export async function cleanAgentLeaks(
  leaks: readonly AgentLeak[],
  options: CleanLeaksOptions = {},
): Promise<CleanedLeak[]> {
  const readTable = options.readTable ?? readProcTable;
  const cleaned: CleanedLeak[] = [];
  for (const leak of leaks) {
    const { reports: stops, aliveBefore } =
      options.stopFirst === undefined
        ? { reports: [], aliveBefore: new Set<number>() }
        : await stopFirst(leak, options.stopFirst, readTable);
    const table = readTable();
    const results = refuseChangedSubtrees(leak, table);
    const alive = aliveIn(leak, table);
    for (const pid of results.keys()) alive.delete(pid);
    for (const [pid, report] of await endLiveSubtrees(leak, alive, table, options)) results.set(pid, report);
    // A report is believed only as far as the machine bears it out: a process said to have ended
    // that is still there (its root exited between the read and the kill, so the kill never saw
    // it) gets one kill of its own, and if it outlives that too, is reported as surviving.
    const claimed = new Set([...results.values()].filter(saysEnded).map((report) => report.pid));
    if (claimed.size > 0) {
      const after = readTable();
      const outlived = aliveIn(leak, after, claimed);
      if (outlived.size > 0) {
        for (const [pid, report] of await endLiveSubtrees(leak, outlived, after, options)) results.set(pid, report);
        const last = readTable();
        for (const pid of aliveIn(leak, last, new Set(outlived.keys())).keys()) {
          const report = results.get(pid) as ProcessCleanReport;
          if (saysEnded(report))
            results.set(pid, { ...report, result: 'kill_failed', detail: 'still running after its kill' });
        }
      }
    }
    const stoppedBy = stops.find((report) => report.result === 'ok');
    const processes = leak.processes.map(
      ({ entry }): ProcessCleanReport =>
        results.get(entry.pid) ?? {
          pid: entry.pid,
          startTime: entry.startTime,
          result: 'already_gone',
          detail:
            stoppedBy !== undefined && aliveBefore.has(entry.pid)
              ? `ended by the agent's own \`${stops.map((report) => report.command.slice(1).join(' ')).join('`, `')}\``
              : goneDetail(table, entry.pid),
        },
    );
    const survivors = processes
      .filter((p) => p.result === 'kill_failed' || p.result === 'error' || p.result === 'refused')
      .map((p) => p.pid);
    cleaned.push({ leak, processes, survivors, ...(stops.length > 0 ? { agentStops: [...stops] } : {}) });
  }
  return cleaned;
}
