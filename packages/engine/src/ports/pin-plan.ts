/**
 * Pins a free-port plan to the holders a person previewed. `free-port PORT` and `free-port PORT
 * --yes` are two reads of the port: a holder that exited between them may have been replaced by
 * another process on the same port, which the preview never showed. With the previewed
 * identities (`--expect PID:START`, printed by the preview), a target that was not previewed
 * refuses the whole plan (nothing is signalled), and a previewed holder that is gone is only
 * reported: it needs no kill.
 */
import type { ProcessIdentity } from '../table/types.js';
import { identityKey } from '../table/types.js';
import type { FreePortPlan } from './plan-free-port.js';

export interface PinnedPlan {
  /** The plan, with a refusal added when a target was not previewed. */
  readonly plan: FreePortPlan;
  /** What changed since the preview, one line each (empty when nothing did). */
  readonly changes: readonly string[];
}

const describe = (identity: ProcessIdentity) => `pid ${identity.pid} (start ${identity.startTime})`;

/** `PID:START` — the form the preview prints (`expect`) — as an identity, or null. */
export function parseExpectedIdentity(text: string): ProcessIdentity | null {
  const match = /^([1-9]\d{0,9}):([^\s:]{1,64})$/.exec(text);
  if (match === null) return null;
  return { pid: Number(match[1]), startTime: match[2] as string };
}

/** The identities a pinned `--yes` expects, in the form `parseExpectedIdentity` reads. */
export function formatExpectedIdentities(plan: FreePortPlan): string[] {
  return plan.targets.map((target) => `${target.identity.pid}:${target.identity.startTime}`);
}

export function pinFreePortPlan(plan: FreePortPlan, expected: readonly ProcessIdentity[]): PinnedPlan {
  const wanted = new Set(expected.map(identityKey));
  const current = new Set(plan.targets.map((target) => identityKey(target.identity)));
  const unexpected = plan.targets.filter((target) => !wanted.has(identityKey(target.identity)));
  const gone = expected.filter((identity) => !current.has(identityKey(identity)));
  const changes = [
    ...unexpected.map((target) => `${describe(target.identity)} holds the port now and was not in the preview`),
    ...gone.map((identity) => `${describe(identity)} from the preview no longer holds the port`),
  ];
  if (unexpected.length === 0) return { plan, changes };
  const refusal =
    `the holder changed since the preview: ${unexpected.map((t) => describe(t.identity)).join(', ')} ` +
    `was not previewed (expected ${expected.map(describe).join(', ') || 'none'})`;
  return { plan: { ...plan, refusals: [...plan.refusals, refusal] }, changes };
}
