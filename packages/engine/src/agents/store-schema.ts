/** The on-disk record of one agent session (`<state dir>/agent-sessions/<id>.json`), validated on read. */
import { z } from 'zod';
import { memberRoles } from './rule-schema.js';

const identity = { pid: z.number().int().positive(), startTime: z.string().min(1).max(64) };
/** Longest argv kept per member: enough to recognise it, bounded so a hostile argv cannot bloat the store. */
export const MAX_STORED_ARGS = 64;
export const MAX_STORED_ARG_CHARS = 512;

export const storedMemberSchema = z
  .object({
    ...identity,
    ppid: z.number().int().nonnegative(),
    role: z.enum(memberRoles),
    args: z.array(z.string().max(MAX_STORED_ARG_CHARS)).max(MAX_STORED_ARGS),
    via: z.enum(['descendant', 'marker']),
  })
  .strict();

export const storedSessionSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(/^[a-z0-9._-]{1,160}$/),
    agent: z.string().min(1).max(64),
    root: z.object({ ...identity, args: z.array(z.string().max(MAX_STORED_ARG_CHARS)).max(MAX_STORED_ARGS) }).strict(),
    cwd: z.string().max(4096).nullable(),
    startedAtMs: z.number().nonnegative(),
    lastSeenAtMs: z.number().nonnegative(),
    endedAtMs: z.number().nonnegative().nullable(),
    members: z.array(storedMemberSchema),
    sessionKeys: z.array(z.string().max(300)).max(100),
  })
  .strict();

export type StoredMember = z.infer<typeof storedMemberSchema>;
export type StoredSession = z.infer<typeof storedSessionSchema>;
