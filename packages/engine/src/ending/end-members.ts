/**
 * Ends matched processes with the engine's revalidated tree kill, one kill per member root, and
 * writes every attempt to the ledger. Shared by the guardian (lease end) and `orphans --clean`.
 */
import type { KillOutcome, KillTreeOptions } from '../kill/types.js';
import { appendLedgerRecord } from '../ledger/append.js';
import { killRecordOf } from '../ledger/kill-record.js';
import type { LedgerActor } from '../ledger/records.js';
import { type MemberMatch, memberRoots } from '../membership/run-members.js';
import type { ProcessIdentity } from '../table/types.js';

export type KillTreeFn = (target: ProcessIdentity, options: KillTreeOptions) => Promise<KillOutcome>;

export interface EndReport {
  readonly root: MemberMatch;
  readonly outcome: KillOutcome | null;
  /** Set when the kill threw (a bug or an unreadable table); the tree may still be alive. */
  readonly error?: string;
}

export interface EndMembersOptions {
  readonly killTree: KillTreeFn;
  /** Ledger file to record each attempt in; omitted in dry tests. */
  readonly ledgerFile?: string;
  readonly actor?: LedgerActor;
  /** Why: `lease_eof`, `orphan_clean`, … */
  readonly reason: string;
  readonly graceMs?: number;
}

export async function endMembers(matches: readonly MemberMatch[], options: EndMembersOptions): Promise<EndReport[]> {
  const reports: EndReport[] = [];
  for (const root of memberRoots(matches)) {
    const target = { pid: root.entry.pid, startTime: root.entry.startTime };
    try {
      const killOptions: KillTreeOptions = {
        ...(root.runId !== null ? { runId: root.runId } : {}),
        ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
      };
      const outcome = await options.killTree(target, killOptions);
      reports.push({ root, outcome });
      if (options.ledgerFile !== undefined) recordKill(options, root, outcome);
    } catch (error) {
      reports.push({ root, outcome: null, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return reports;
}

function recordKill(options: EndMembersOptions, root: MemberMatch, outcome: KillOutcome): void {
  const reason = `${options.reason}: ${root.reasons.join('; ')}`;
  appendLedgerRecord(
    options.ledgerFile as string,
    killRecordOf(outcome, root.runId, root.leaseId, reason),
    options.actor,
  );
}
