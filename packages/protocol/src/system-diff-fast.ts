/**
 * The one hot message, checked without zod's interpreter. A UI's strict CSP forbids `eval`, so
 * zod validates object by object through its interpreted path: ~10 µs per process node, about
 * 10 ms for a 20,000-process system diff (1,000 upserts), the largest single step of the System
 * view's update. This checks a `systemDiff` event's plain fields by hand in one pass and builds
 * the same output zod would (known keys only, in schema order).
 *
 * It only ever accepts: anything it is not sure of (a wrong type, a bound crossed, a field it does
 * not check itself, such as `listening`) makes it answer null, and the caller hands the message
 * to the zod schema, which stays the one definition and gives the error. The tests hold the two
 * to the same answers over every field's edge values (test/system-diff-fast.test.ts).
 */
import type { HostEvent } from './events.js';
import type { ProcessNode } from './model.js';

type SystemDiffEvent = Extract<HostEvent, { type: 'systemDiff' }>;

/** evidence: the schema's bounds (model.ts processNodeSchema). */
const MAX_EVIDENCE = 8;
const MAX_EVIDENCE_CHARS = 512;
const MAX_STATE_CHARS = 2;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isAmount = (value: unknown): value is number => Number.isFinite(value) && (value as number) >= 0;

function evidenceOf(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_EVIDENCE) return null;
  for (const item of value) if (typeof item !== 'string' || item.length > MAX_EVIDENCE_CHARS) return null;
  return [...(value as string[])];
}

/** One node as processNodeSchema would output it, or null when unsure (zod decides). */
function nodeOf(raw: unknown): ProcessNode | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const n = raw as Record<string, unknown>;
  const { pid, startTime, ppid, pgid, sid, state, uid, command, commandLine, cwd } = n;
  const { cpuPercent, rssBytes, startedAtMs, escaped, escapedInto, evidence, listening } = n;
  if (!isCount(pid) || pid === 0 || typeof startTime !== 'string') return null;
  if (!isCount(ppid) || !isCount(pgid) || !isCount(sid) || !isCount(uid)) return null;
  if (typeof state !== 'string' || state.length > MAX_STATE_CHARS) return null;
  if (typeof command !== 'string' || typeof commandLine !== 'string') return null;
  if (cwd !== null && typeof cwd !== 'string') return null;
  if (cpuPercent !== undefined && !isAmount(cpuPercent)) return null;
  if (!isAmount(rssBytes) || !isAmount(startedAtMs) || typeof escaped !== 'boolean') return null;
  if (escapedInto !== undefined && escapedInto !== 'session' && escapedInto !== 'group') return null;
  if (listening !== undefined) return null;
  const node: ProcessNode = {
    pid,
    startTime,
    ppid,
    pgid,
    sid,
    state,
    uid,
    command,
    commandLine,
    cwd,
    rssBytes,
    startedAtMs,
    escaped,
  };
  const optional = node as Record<string, unknown>;
  // An optional key given as undefined stays in zod's output, as undefined.
  if (cpuPercent !== undefined || Object.hasOwn(n, 'cpuPercent')) optional.cpuPercent = cpuPercent;
  if (escapedInto !== undefined || Object.hasOwn(n, 'escapedInto')) optional.escapedInto = escapedInto;
  if (evidence !== undefined) {
    const checked = evidenceOf(evidence);
    if (checked === null) return null;
    node.evidence = checked;
  } else if (Object.hasOwn(n, 'evidence')) optional.evidence = undefined;
  if (Object.hasOwn(n, 'listening')) optional.listening = undefined;
  return node;
}

/**
 * A `systemDiff` event as eventSchema would output it, or null: not one, or not sure (then the
 * zod schema decides and says what is wrong).
 */
export function parseSystemDiffFast(raw: unknown): SystemDiffEvent | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const event = raw as Record<string, unknown>;
  const { full, upserts, removed } = event;
  if (event.type !== 'systemDiff' || typeof full !== 'boolean') return null;
  if (!Array.isArray(upserts) || !Array.isArray(removed)) return null;
  for (const key of removed) if (typeof key !== 'string') return null;
  const nodes: ProcessNode[] = new Array(upserts.length);
  for (let i = 0; i < upserts.length; i += 1) {
    const node = nodeOf(upserts[i]);
    if (node === null) return null;
    nodes[i] = node;
  }
  return { type: 'systemDiff', full, upserts: nodes, removed: [...(removed as string[])] };
}
