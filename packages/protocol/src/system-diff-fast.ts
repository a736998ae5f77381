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
import { type ProcessNode, processNodeSchema } from './model.js';

type SystemDiffEvent = Extract<HostEvent, { type: 'systemDiff' }>;

/** evidence: the schema's bounds (model.ts processNodeSchema). */
const MAX_EVIDENCE = 8;
const MAX_EVIDENCE_CHARS = 512;
const MAX_STATE_CHARS = 2;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isAmount = (value: unknown): value is number => Number.isFinite(value) && (value as number) >= 0;

function evidenceFits(value: unknown): value is string[] {
  if (!Array.isArray(value) || value.length > MAX_EVIDENCE) return false;
  for (const item of value) if (typeof item !== 'string' || item.length > MAX_EVIDENCE_CHARS) return false;
  return true;
}

/** processNodeSchema's keys (from the schema itself): an object holding no others is its own output. */
const NODE_KEYS: ReadonlySet<string> = new Set(Object.keys(processNodeSchema.shape));

/** A plain object (not a class instance, no getters) whose own keys are all the schema's. */
function onlyNodeKeys(n: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(n) !== Object.prototype) return false;
  for (const key in n) if (!NODE_KEYS.has(key)) return false;
  return true;
}

/** Whether every field of `n` is one processNodeSchema accepts (listening: not checked here, so no). */
function fieldsFit(n: Record<string, unknown>): boolean {
  const { pid, startTime, ppid, pgid, sid, state, uid, command, commandLine, cwd } = n;
  const { cpuPercent, rssBytes, startedAtMs, escaped, escapedInto, evidence, listening } = n;
  return (
    isCount(pid) &&
    pid !== 0 &&
    typeof startTime === 'string' &&
    isCount(ppid) &&
    isCount(pgid) &&
    isCount(sid) &&
    isCount(uid) &&
    typeof state === 'string' &&
    state.length <= MAX_STATE_CHARS &&
    typeof command === 'string' &&
    typeof commandLine === 'string' &&
    (cwd === null || typeof cwd === 'string') &&
    (cpuPercent === undefined || isAmount(cpuPercent)) &&
    isAmount(rssBytes) &&
    isAmount(startedAtMs) &&
    typeof escaped === 'boolean' &&
    (escapedInto === undefined || escapedInto === 'session' || escapedInto === 'group') &&
    (evidence === undefined || evidenceFits(evidence)) &&
    listening === undefined
  );
}

/** The schema's output for a node whose fields fit but which holds other keys too: those go. */
function knownKeysOf(n: Record<string, unknown>): ProcessNode {
  const node: Record<string, unknown> = {};
  for (const key of NODE_KEYS) if (Object.hasOwn(n, key)) node[key] = n[key];
  return node as ProcessNode;
}

/**
 * One node as processNodeSchema would output it, or null when unsure (zod decides). A node that
 * holds only the schema's keys is returned as it came (it was decoded or structured-cloned for
 * us: nobody else holds it), which saves an object per process per diff; any other is copied
 * without its unknown keys, as zod strips them.
 */
function nodeOf(raw: unknown): ProcessNode | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const n = raw as Record<string, unknown>;
  if (!fieldsFit(n)) return null;
  return onlyNodeKeys(n) ? (n as ProcessNode) : knownKeysOf(n);
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
