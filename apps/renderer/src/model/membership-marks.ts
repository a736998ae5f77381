/**
 * What each process of the machine belongs to, as the All processes view marks it: a leaked
 * process (from the snapshot's orphans, the one source of every leak count) or a member of a run
 * (with its lease) or of an agent session. Keyed by identity (pid + start time), so a recycled pid
 * is never marked with what its predecessor belonged to. The mark is text: colour only repeats it.
 */
import type { Snapshot } from '@treewarden/protocol';
import { identityKey } from './identity';

export interface MembershipMark {
  /** What the row shows, e.g. "leaked · run 2f1c…" or "run 2f1c… · lease ci". */
  readonly label: string;
  /** The full sentence for the tooltip and screen readers. */
  readonly title: string;
  readonly leaked: boolean;
}

const SHORT_ID = 8;

function shortId(id: string): string {
  return id.length > SHORT_ID ? `${id.slice(0, SHORT_ID)}…` : id;
}

/** "run-mxav…" already says it is a run; other ids ("a1b2…") get the word. */
function runLabel(id: string): string {
  return id.startsWith('run-') ? shortId(id) : `run ${shortId(id)}`;
}

function leakMark(orphan: Snapshot['orphans'][number], leaseNames: ReadonlyMap<string, string>): MembershipMark {
  if (orphan.kind === 'agent') {
    const agent = orphan.agent ?? 'agent';
    return {
      label: `leaked · ${agent} session`,
      title: `Leaked by ${agent} session ${orphan.sessionId ?? '(found from markers alone)'}: ${orphan.reasons.join('; ')}`,
      leaked: true,
    };
  }
  const run = orphan.runId === null ? 'an unregistered run' : `run ${orphan.runId}`;
  const lease = orphan.leaseId === null ? '' : ` of lease ${leaseNames.get(orphan.leaseId) ?? orphan.leaseId}`;
  return {
    label: orphan.runId === null ? 'leaked · unregistered run' : `leaked · ${runLabel(orphan.runId)}`,
    title: `Leaked by ${run}${lease}: ${orphan.reasons.join('; ')}`,
    leaked: true,
  };
}

/** Marks by identity key; leaks win over membership (a leaked member is shown as leaked). */
export function membershipMarks(snapshot: Snapshot | null): ReadonlyMap<string, MembershipMark> {
  const marks = new Map<string, MembershipMark>();
  if (snapshot === null) return marks;
  const leaseNames = new Map(snapshot.leases.map((lease) => [lease.id, lease.name]));
  for (const session of snapshot.sessions ?? []) {
    const where = session.cwd === null ? '' : ` in ${session.cwd}`;
    for (const process of session.processes) {
      marks.set(identityKey(process), {
        label: `${session.agent} session`,
        title: `${process.role === 'root' ? 'Root' : `Member (${process.role})`} of ${session.agent} session ${session.id}${where}`,
        leaked: false,
      });
    }
  }
  for (const lease of snapshot.leases) {
    for (const run of lease.runs) {
      for (const process of run.processes) {
        marks.set(identityKey(process), {
          label: `${runLabel(run.id)} · lease ${lease.name}`,
          title: `Member of run ${run.id} (${run.command}) under lease ${lease.name}`,
          leaked: false,
        });
      }
    }
  }
  for (const orphan of snapshot.orphans) marks.set(identityKey(orphan.process), leakMark(orphan, leaseNames));
  return marks;
}
