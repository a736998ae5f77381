/** The on-disk record of one agent session (`<state dir>/agent-sessions/<id>.json`), validated on read. */
import { z } from 'zod';
import { memberRoles } from '../rules/rule-schema.js';

const identity = { pid: z.number().int().positive(), startTime: z.string().min(1).max(64) };

import { MAX_STORED_ARG_CHARS, MAX_STORED_ARGS } from './store-limits.js';

export { MAX_STORED_ARG_CHARS, MAX_STORED_ARGS } from './store-limits.js';

export const storedMemberSchema = z
  .object({
    ...identity,
    ppid: z.number().int().nonnegative(),
    role: z.enum(memberRoles),
    args: z.array(z.string().max(MAX_STORED_ARG_CHARS)).max(MAX_STORED_ARGS),
    via: z.enum(['descendant', 'marker', 'team']),
  })
  .strict();

/**
 * Store ids are file names: an observer's `agent-PID-START`, a hook's `agent-SESSIONID`. Agents' own
 * session ids are UUIDs today; upper case is accepted so an id is never rewritten (it must match
 * the environment value byte for byte).
 */
export const STORE_ID_PATTERN = /^[A-Za-z0-9._-]{1,160}$/;
/** An agent's own session id as its hooks pass it (`session_id`) and its children carry it. */
export const AGENT_SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Bound on the identities one clean-up report keeps. */
export const MAX_CLEANUP_REPORT = 1000;

/** What the SessionEnd reaper ended, so `watch` and the UI can say so (the ledger has the detail). */
export const hookCleanupSchema = z
  .object({
    atMs: z.number().nonnegative(),
    ended: z.array(z.object(identity).strict()).max(MAX_CLEANUP_REPORT),
    survivors: z.array(z.object(identity).strict()).max(MAX_CLEANUP_REPORT),
    note: z.string().max(500),
  })
  .strict();

/**
 * Present when an agent's own hook recorded the session: the agent's session id, and the
 * environment variable that carries it on the agent's children (null: the agent puts none there).
 * `openedAtMs` is the last SessionStart: a resumed session reopens the record with a new root.
 */
export const hookInfoSchema = z
  .object({
    sessionId: z.string().regex(AGENT_SESSION_ID_PATTERN),
    envKey: z.string().regex(ENV_NAME_PATTERN).nullable(),
    openedAtMs: z.number().nonnegative(),
    cleanup: hookCleanupSchema.optional(),
  })
  .strict();

export const storedSessionSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(STORE_ID_PATTERN),
    agent: z.string().min(1).max(64),
    root: z.object({ ...identity, args: z.array(z.string().max(MAX_STORED_ARG_CHARS)).max(MAX_STORED_ARGS) }).strict(),
    cwd: z.string().max(4096).nullable(),
    startedAtMs: z.number().nonnegative(),
    lastSeenAtMs: z.number().nonnegative(),
    endedAtMs: z.number().nonnegative().nullable(),
    members: z.array(storedMemberSchema),
    sessionKeys: z.array(z.string().max(300)).max(100),
    /** Records written before hooks existed have none: they stay readable. */
    hook: hookInfoSchema.optional(),
    /**
     * A session daemon's family (`daemon`: the root is the daemon), or a session one of its workers
     * runs (`background`), which is over when its daemon is gone even if its root still runs.
     */
    family: z
      .object({ kind: z.enum(['daemon', 'background']), daemon: z.object(identity).strict() })
      .strict()
      .optional(),
  })
  .strict();

export type StoredMember = z.infer<typeof storedMemberSchema>;
export type StoredSession = z.infer<typeof storedSessionSchema>;
export type HookInfo = z.infer<typeof hookInfoSchema>;
export type HookCleanup = z.infer<typeof hookCleanupSchema>;
