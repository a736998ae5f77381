/**
 * Messages between a lease holder and its guardian, over the guardian's IPC channel. The lease
 * itself is a separate pipe (fd 3) that carries no messages: its EOF is the only signal that
 * matters, and it arrives however the holder ends, even by SIGKILL of its whole group.
 */
import { isAbsolute } from 'node:path';
import { KILL_TIMELINE_ACTIONS } from '@treewarden/protocol/vocabulary';
import { z } from 'zod';
import { identitySchema } from '../ledger/schema.js';
import {
  CLASSIFICATIONS,
  KILLERS,
  type Killer,
  type RunEvent,
  type RunOutcome,
  type RunPhase,
  type RunSpec,
} from '../run/types.js';
import { isBase64 } from '../runtime/argv-bytes.js';
import type { ProcessIdentity } from '../table/types.js';
import { SAFE_ID } from './lease-file.js';

const safeId = z.string().regex(SAFE_ID);

/** The file descriptor of the lease pipe in the guardian. */
export const LEASE_PIPE_FD = 3;

export interface GuardianConfig {
  readonly leaseId: string;
  readonly name: string;
  readonly stateDir: string;
  readonly holder: ProcessIdentity;
  /** Free-form label of the holder ("cli", "vitest", …), recorded in the registry. */
  readonly holderLabel?: string;
  /** The holder's session and group at open: leftovers of a dead holder's own session are leaks. */
  readonly holderSession?: { readonly sid: number; readonly pgid: number };
}

export type HolderMessage =
  | {
      readonly t: 'start';
      readonly runId: string;
      readonly spec: RunSpec;
      /**
       * The run's base environment as one `NAME=value\0…` block, under the spec's `env`; absent
       * when the holder put the whole environment in `spec.env`.
       */
      readonly environ?: string;
    }
  | { readonly t: 'cancel'; readonly runId: string; readonly reason?: string; readonly by?: Killer };

/**
 * What the holder writes into the lease pipe just before closing it on release. The pipe is one
 * stream with one writer, so the guardian sees this before the EOF; EOF without it means the
 * holder died.
 */
export const RELEASE_TOKEN = 'release\n';

export type GuardianMessage =
  | { readonly t: 'ready'; readonly guardian: ProcessIdentity; readonly subreaper: boolean }
  | {
      readonly t: 'started';
      readonly runId: string;
      readonly runDir: string;
      readonly phase: RunPhase;
      readonly pid: number | null;
      readonly startTime: string | null;
    }
  | { readonly t: 'event'; readonly runId: string; readonly event: RunEvent }
  | { readonly t: 'ended'; readonly runId: string; readonly outcome: RunOutcome }
  | { readonly t: 'failed'; readonly runId: string; readonly error: string };

const runSpecSchema = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  // Checked against command and args by validateRunSpec before anything launches.
  argvBase64: z.array(z.string().refine(isBase64, 'must be base64')).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  timeoutSeconds: z.number().nullable().optional(),
  graceSeconds: z.number().optional(),
  runId: safeId.optional(),
  leaseId: safeId.optional(),
  keepDescendants: z.boolean().optional(),
  keepAfterLease: z.boolean().optional(),
  output: z.enum(['inherit', 'capture', 'tee']).optional(),
});

const holderMessageSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('start'), runId: safeId, spec: runSpecSchema, environ: z.string().optional() }),
  z.object({ t: z.literal('cancel'), runId: safeId, reason: z.string().optional(), by: z.enum(KILLERS).optional() }),
]) satisfies z.ZodType<HolderMessage>;

const phaseSchema = z.enum(['starting', 'running', 'stopping', 'ended']);

const runEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('phase'), phase: phaseSchema }),
  z.object({ type: z.literal('spawned'), identity: identitySchema }),
  z.object({ type: z.literal('members'), members: z.array(identitySchema) }),
  z.object({ type: z.literal('output'), stream: z.enum(['stdout', 'stderr']), text: z.string() }),
]) satisfies z.ZodType<RunEvent>;

const killOutcomeSchema = z.looseObject({
  result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused']),
  target: identitySchema,
  attempts: z.number(),
  killed: z.array(identitySchema),
  survivors: z.array(identitySchema),
  timeline: z.array(
    z.looseObject({
      atMs: z.number(),
      action: z.enum(KILL_TIMELINE_ACTIONS),
      pids: z.array(z.number()).optional(),
      groups: z.array(z.number()).optional(),
      detail: z.string().optional(),
    }),
  ),
  error: z.string().optional(),
  startedAtMs: z.number(),
  durationMs: z.number(),
});

const runOutcomeSchema = z.looseObject({
  runId: z.string(),
  classification: z.enum(CLASSIFICATIONS),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  pid: z.number().nullable(),
  startTime: z.string().nullable(),
  durationMs: z.number(),
  killAttempts: z.number(),
  survivors: z.array(identitySchema),
  leftovers: z.array(identitySchema),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  error: z.string().optional(),
  kill: killOutcomeSchema.optional(),
  kept: z.array(identitySchema).optional(),
  killedBy: z.enum(KILLERS).optional(),
}) satisfies z.ZodType<RunOutcome>;

const guardianMessageSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('ready'), guardian: identitySchema, subreaper: z.boolean() }),
  z.object({
    t: z.literal('started'),
    runId: z.string(),
    runDir: z.string(),
    phase: phaseSchema,
    pid: z.number().int().positive().nullable(),
    startTime: z.string().nullable(),
  }),
  z.object({ t: z.literal('event'), runId: z.string(), event: runEventSchema }),
  z.object({ t: z.literal('ended'), runId: z.string(), outcome: runOutcomeSchema }),
  z.object({ t: z.literal('failed'), runId: z.string(), error: z.string() }),
]) satisfies z.ZodType<GuardianMessage>;

const guardianConfigSchema = z.object({
  leaseId: safeId,
  name: z.string(),
  stateDir: z.string().refine(isAbsolute, 'must be an absolute path'),
  holder: identitySchema,
  holderLabel: z.string().optional(),
  holderSession: z.object({ sid: z.number().int().nonnegative(), pgid: z.number().int().nonnegative() }).optional(),
}) satisfies z.ZodType<GuardianConfig>;

/** The message, as validated; null for anything else (a bad message is dropped, never acted on). */
export function parseHolderMessage(value: unknown): HolderMessage | null {
  const parsed = holderMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function parseGuardianMessage(value: unknown): GuardianMessage | null {
  const parsed = guardianMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The guardian's argv config; throws with what is wrong, since a guardian cannot start without it. */
export function parseGuardianConfig(json: string): GuardianConfig {
  const parsed = guardianConfigSchema.safeParse(JSON.parse(json));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`invalid guardian config: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
}
