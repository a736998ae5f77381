/**
 * Runtime schemas of ledger records. The ledger decides what the orphan finder may kill, so a
 * line is believed only when it matches its kind's schema; fields added by newer writers are kept
 * (loose objects), kinds this version does not know are skipped, and a known kind with a bad
 * shape is reported as invalid rather than half-trusted.
 */
import { z } from 'zod';
import { LIMIT_ENFORCEMENTS, LIMIT_METHODS } from '../run/limits.js';
import { CLASSIFICATIONS, KILLERS } from '../run/types.js';
import { CONTAINER_STOP_RESULTS, LEDGER_VERSION, type LedgerKind, type LedgerRecord } from './records.js';

export const identitySchema = z.object({ pid: z.number().int().positive(), startTime: z.string() });
const identities = z.array(identitySchema);
const id = z.string().min(1).max(200);

const actorSchema = z.object({
  role: z.enum(['holder', 'guardian', 'cli', 'app', 'test']),
  pid: z.number().int().positive(),
  startTime: z.string().optional(),
});

const positiveNumber = z.number().positive();
const runLimitsSchema = z.looseObject({
  maxMemoryBytes: positiveNumber.optional(),
  maxProcs: positiveNumber.optional(),
  maxCpuSeconds: positiveNumber.optional(),
  idleTimeoutSeconds: positiveNumber.optional(),
});
const limitEnforcementSchema = z.enum(LIMIT_ENFORCEMENTS);
const limitNameSchema = z.enum(['max-memory', 'max-procs', 'max-cpu', 'idle-timeout']);
/** Per limit, what it was checked against (newer records; older ones have only limitEnforcement). */
const limitMethodsSchema = z.partialRecord(limitNameSchema, z.enum(LIMIT_METHODS));
/** The run's own cgroup v2 directory (`--cgroup`): orphans looks there for leftovers. */
const cgroupPathSchema = z.string().startsWith('/').max(4096);
const limitTripSchema = z.looseObject({
  name: limitNameSchema,
  value: z.number(),
  observed: z.number(),
});

const base = { v: z.literal(LEDGER_VERSION), at: z.string(), by: actorSchema };

const leaseStart = z.looseObject({
  ...base,
  kind: z.literal('lease_start'),
  leaseId: id,
  name: z.string(),
  holder: identitySchema,
  guardian: identitySchema,
  subreaper: z.boolean(),
});

const leaseEnd = z.looseObject({
  ...base,
  kind: z.literal('lease_end'),
  leaseId: id,
  reason: z.enum(['released', 'holder_died']),
  runsEnded: z.array(z.string()),
  survivors: identities,
  runsKept: z.array(z.string()).optional(),
});

const runStart = z.looseObject({
  ...base,
  kind: z.literal('run_start'),
  runId: id,
  leaseId: id.optional(),
  command: z.string(),
  args: z.array(z.string()),
  argvBase64: z.array(z.string()).optional(),
  cwd: z.string(),
  runDir: z.string().optional(),
  pid: z.number().int().positive().nullable(),
  startTime: z.string().nullable(),
  timeoutSeconds: z.number().positive().optional(),
  deadlineAt: z.string().optional(),
  limits: runLimitsSchema.optional(),
  limitEnforcement: limitEnforcementSchema.optional(),
  limitMethods: limitMethodsSchema.optional(),
  cgroup: cgroupPathSchema.optional(),
  keepAfterLease: z.boolean().optional(),
});

const runEnd = z.looseObject({
  ...base,
  kind: z.literal('run_end'),
  runId: id,
  leaseId: id.optional(),
  classification: z.enum(CLASSIFICATIONS),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  killAttempts: z.number().int().nonnegative(),
  survivors: identities,
  error: z.string().optional(),
  endedWithoutSupervisor: z.string().optional(),
  kept: identities.optional(),
  limit: limitTripSchema.optional(),
  limitEnforcement: limitEnforcementSchema.optional(),
  limitMethods: limitMethodsSchema.optional(),
  cgroup: cgroupPathSchema.optional(),
  /** Who ended the run (absent in records written before it was kept, and for runs that ended on their own). */
  killedBy: z.enum(KILLERS).optional(),
});

const guardianLost = z.looseObject({
  ...base,
  kind: z.literal('guardian_lost'),
  leaseId: id,
  guardian: identitySchema,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  runsTakenOver: z.array(z.string()),
});

const signalName = z.union([
  z.enum(['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGSTOP', 'SIGCONT']),
  z.literal(0),
]);

const kill = z.looseObject({
  ...base,
  kind: z.literal('kill'),
  runId: id.optional(),
  leaseId: id.optional(),
  reason: z.string(),
  target: identitySchema,
  result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused']),
  signals: z.array(signalName),
  pids: z.array(z.number().int()),
  killed: identities,
  survivors: identities,
  attempts: z.number().int().nonnegative(),
  error: z.string().optional(),
});

const containerStop = z.looseObject({
  ...base,
  kind: z.literal('container_stop'),
  reason: z.string().max(200),
  sessionId: id,
  containerId: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().max(300),
  image: z.string().max(1000),
  createdAtMs: z.number().nonnegative(),
  strength: z.enum(['strong', 'weak']),
  result: z.enum(CONTAINER_STOP_RESULTS),
  detail: z.string().max(2000),
});

/** One schema per kind: a kind added to LedgerRecord without a schema does not compile. */
const RECORD_SCHEMAS = {
  lease_start: leaseStart,
  lease_end: leaseEnd,
  run_start: runStart,
  run_end: runEnd,
  kill,
  guardian_lost: guardianLost,
  container_stop: containerStop,
} satisfies { [K in LedgerKind]: z.ZodType<Extract<LedgerRecord, { kind: K }>> };

export type RecordCheck =
  | { readonly ok: true; readonly record: LedgerRecord }
  /** Not a record of a kind this version knows (a newer writer's): skipped, not an error. */
  | { readonly ok: false; readonly unknownKind: true }
  | { readonly ok: false; readonly unknownKind: false; readonly problem: string };

function isKnownKind(kind: unknown): kind is LedgerKind {
  return typeof kind === 'string' && Object.hasOwn(RECORD_SCHEMAS, kind);
}

export function checkLedgerRecord(value: unknown): RecordCheck {
  if (typeof value !== 'object' || value === null) return { ok: false, unknownKind: false, problem: 'not an object' };
  const { kind, v } = value as { kind?: unknown; v?: unknown };
  if (v !== LEDGER_VERSION || !isKnownKind(kind)) return { ok: false, unknownKind: true };
  const parsed = RECORD_SCHEMAS[kind].safeParse(value);
  if (parsed.success) return { ok: true, record: parsed.data as LedgerRecord };
  const issue = parsed.error.issues[0];
  return { ok: false, unknownKind: false, problem: `${kind}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}` };
}
