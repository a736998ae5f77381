/**
 * Ends agent leaks with the engine's revalidated tree kill (graceful signal, grace, SIGKILL,
 * verify), one kill per leaked subtree root, each recorded in the ledger. The kill re-reads the
 * table and refuses a root whose start time changed. A subtree that now holds a process the leak
 * did not name (a live session's, or a stranger's) is refused whole, before anything is signalled.
 */
import { killTree } from '../kill/kill-tree.js';
import type { KillResult } from '../kill/types.js';
import { type EndReport, endMembers, type KillTreeFn } from '../orphans/end-members.js';
import type { MemberMatch } from '../orphans/membership.js';
import { readProcTable } from '../table/linux-proc.js';
import { indexChildren } from '../table/trees.js';
import type { ProcessTable } from '../table/types.js';
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
}

export interface CleanLeaksOptions {
  readonly ledgerFile?: string;
  readonly graceMs?: number;
  readonly killTree?: KillTreeFn;
  readonly readTable?: () => ProcessTable;
  /** The ledger's reason word; default `agent_leak_clean` (the SessionEnd reaper: `agent_session_end`; trim: `session_trim KIND`). */
  readonly reason?: string;
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

function reportFor(
  leak: AgentLeak,
  reports: readonly EndReport[],
  refused: ReadonlyMap<number, string>,
): ProcessCleanReport[] {
  const byRoot = new Map(reports.map((report) => [report.root.entry.pid, report]));
  const parentOf = new Map(leak.processes.map((process) => [process.entry.pid, process.entry.ppid]));
  const rootOf = (pid: number): number => {
    let current = pid;
    for (let hops = 0; hops < leak.processes.length && parentOf.has(parentOf.get(current) ?? -1); hops += 1)
      current = parentOf.get(current) as number;
    return current;
  };
  return leak.processes.map(({ entry }) => {
    const root = rootOf(entry.pid);
    const refusal = refused.get(root);
    if (refusal !== undefined)
      return { pid: entry.pid, startTime: entry.startTime, result: 'refused', detail: refusal };
    const report = byRoot.get(root);
    const outcome = report?.outcome ?? null;
    if (outcome === null)
      return { pid: entry.pid, startTime: entry.startTime, result: 'error', detail: report?.error ?? 'not attempted' };
    const survived = outcome.survivors.some((s) => s.pid === entry.pid && s.startTime === entry.startTime);
    const result: KillResult = survived ? 'kill_failed' : outcome.result === 'kill_failed' ? 'killed' : outcome.result;
    return { pid: entry.pid, startTime: entry.startTime, result, ...(outcome.error ? { detail: outcome.error } : {}) };
  });
}

export async function cleanAgentLeaks(
  leaks: readonly AgentLeak[],
  options: CleanLeaksOptions = {},
): Promise<CleanedLeak[]> {
  const cleaned: CleanedLeak[] = [];
  for (const leak of leaks) {
    const table = (options.readTable ?? readProcTable)();
    const named = new Set(leak.processes.map((process) => process.entry.pid));
    const matches: MemberMatch[] = leak.processes.map((process) => ({
      entry: process.entry,
      runId: null,
      leaseId: null,
      reasons: [`${options.reason === undefined ? 'agent leak of' : 'session'} ${leak.sessionId}`, ...process.reasons],
    }));
    const roots = matches.filter((match) => !named.has(match.entry.ppid));
    const refused = new Map<number, string>();
    for (const root of roots) {
      const strangers = strangersUnder(root.entry.pid, named, table);
      if (strangers.length > 0)
        refused.set(root.entry.pid, `its tree now holds processes the leak did not name: ${strangers.join(' ')}`);
    }
    const targets = matches.filter((match) => !refused.has(match.entry.pid) && !named.has(match.entry.ppid));
    const reports = await endMembers(targets, {
      killTree: options.killTree ?? killTree,
      reason: options.reason ?? 'agent_leak_clean',
      ...(options.ledgerFile !== undefined ? { ledgerFile: options.ledgerFile } : {}),
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
    const processes = reportFor(leak, reports, refused);
    const survivors = processes
      .filter((p) => p.result === 'kill_failed' || p.result === 'error' || p.result === 'refused')
      .map((p) => p.pid);
    cleaned.push({ leak, processes, survivors });
  }
  return cleaned;
}
