/**
 * Agent sessions in the shared contract: what `treewarden sessions --json` prints, and the agent
 * leak groups `treewarden orphans --json` adds (`kind: "agent"`). The host will put the same rows
 * in its snapshot so the UI can show sessions beside leases and leaks in the banner.
 */
import { z } from 'zod';
import { MEMBER_ROLES, SESSION_ALERT_KINDS } from './vocabulary.js';

const pid = z.number().int().positive();
const startTime = z.string().min(1).max(64);
const args = z.array(z.string());

export const agentRoleSchema = z.enum(MEMBER_ROLES);
export type AgentRole = z.infer<typeof agentRoleSchema>;

/**
 * Open file descriptors and inotify watches of one process (from `/proc/PID/fd` and `fdinfo`),
 * read only for the views that show them; `openLimit` is its soft `Max open files` (null: unlimited
 * or unreadable).
 */
export const fdUsageSchema = z
  .object({
    open: z.number().int().nonnegative(),
    inotifyWatches: z.number().int().nonnegative(),
    openLimit: z.number().int().positive().nullable(),
  })
  .strict();
export type FdUsage = z.infer<typeof fdUsageSchema>;

export const agentSessionMemberSchema = z
  .object({
    pid,
    startTime,
    role: agentRoleSchema,
    args,
    /** A browser's profile directory (its `--user-data-dir`), when it gave one. */
    profile: z.string().max(4096).optional(),
    /** A browser is one member: the rest of its tree (zygotes, renderers, GPU, crashpad) folded in. */
    tree: z.array(z.object({ pid, startTime }).strict()).optional(),
    /** Its open fds and inotify watches (a browser's: summed over its tree) when they were read. */
    fds: fdUsageSchema.optional(),
  })
  .strict();

/**
 * A pile-up inside a live session: the exact processes (by identity) it is about and why, in words a
 * person checks against the table. `id` is stable while the same processes stay alerted (kind,
 * session and their identities), so found/cleared events and notifications fire once per alert.
 */
export const sessionAlertSchema = z
  .object({
    id: z.string().min(1).max(512),
    kind: z.enum(SESSION_ALERT_KINDS),
    /** The alerted pids (what `trim` ends); `processes` holds the same ones with their start times. */
    pids: z.array(pid).min(1),
    processes: z.array(z.object({ pid, startTime }).strict()).min(1),
    /** The evidence, one sentence: "3 sets of `npx -y @x/server` alive; the newest (pid 812) is kept". */
    why: z.string().min(1).max(2000),
    /** ISO 8601: when the alert was first raised. */
    since: z.string(),
  })
  .strict();
export type SessionAlert = z.infer<typeof sessionAlertSchema>;

/**
 * A container attributed to a session: strong when the session's own CLI created it (or it is a
 * member MCP server's `docker run -i`), weak when only its compose dir or bind mounts name the
 * session's directory (clean-up then needs --all).
 */
export const sessionContainerSchema = z
  .object({
    id: z.string().regex(/^[0-9a-f]{64}$/),
    name: z.string().max(300),
    image: z.string().max(1000),
    /** As the engine says: running, exited, paused, created, … */
    state: z.string().max(40),
    /** ISO 8601 of the last start; null when never started. */
    started: z.string().nullable(),
    /** Epoch ms of its creation: with the id, the identity a stop names (a re-created name is another container). */
    createdAtMs: z.number().int().nonnegative(),
    /** `hostPort->containerPort/proto` per published port. */
    ports: z.array(z.string().max(100)).max(200),
    strength: z.enum(['strong', 'weak']),
    evidence: z
      .array(
        z
          .object({
            kind: z.enum(['creating-cli-member', 'mcp-server', 'compose-working-dir', 'bind-mount']),
            detail: z.string().max(1000),
          })
          .strict(),
      )
      .max(20),
  })
  .strict();
export type SessionContainerRow = z.infer<typeof sessionContainerSchema>;

export const agentSessionSchema = z
  .object({
    id: z.string().min(1).max(160),
    /**
     * The id the agent itself gives this session (Claude Code's session id, Codex's thread id =
     * its telemetry's `conversation.id`, Gemini's and Qwen's session id), from its hooks or its
     * children's markers; absent where Treewarden has not seen it (then only `id` names the session).
     */
    agentSessionId: z.string().min(1).max(160).optional(),
    /** Rule id: `claude-code`, `codex`, `gemini`, `opencode`, `goose`, `cursor-agent`, `aider`, `amp`, or a user rule's. */
    agent: z.string().min(1).max(64),
    state: z.enum(['live', 'ended']),
    root: z.object({ pid, startTime }).strict(),
    cwd: z.string().nullable(),
    /** ISO 8601. */
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    members: z.array(agentSessionMemberSchema),
    /** Pids of members alive after the session ended (empty while live). */
    leaked: z.array(pid),
    /** Pile-ups judged while the session lives (absent or empty once it ended: those are leaks). */
    alerts: z.array(sessionAlertSchema).optional(),
    /** Containers attributed to the session (absent where no container engine runs). */
    containers: z.array(sessionContainerSchema).optional(),
    /**
     * An agent's session daemon (`daemon`: Claude Code's `--bg` daemon, its members the idle
     * workers), or a session one of its workers runs (`background`); `daemon` names the daemon.
     */
    family: z
      .object({ kind: z.enum(['daemon', 'background']), daemon: z.object({ pid, startTime }).strict() })
      .strict()
      .optional(),
  })
  .strict();
export type AgentSessionRow = z.infer<typeof agentSessionSchema>;

export const agentSessionsReportSchema = z
  .object({
    sessions: z.array(agentSessionSchema),
    /** Rule files or remembered records that were skipped, with why. */
    problems: z.array(z.object({ file: z.string(), message: z.string() }).strict()).optional(),
  })
  .strict();
export type AgentSessionsReport = z.infer<typeof agentSessionsReportSchema>;

export const agentLeakProcessSchema = z
  .object({
    pid,
    startTime,
    ppid: z.number().int().nonnegative(),
    pgid: z.number().int().nonnegative(),
    sid: z.number().int().nonnegative(),
    cwd: z.string().nullable(),
    args,
    role: agentRoleSchema,
    reasons: z.array(z.string()).min(1),
  })
  .strict();

export const agentLeakGroupSchema = z
  .object({
    kind: z.literal('agent'),
    agent: z.string().min(1).max(64),
    sessionId: z.string().min(1).max(160),
    /** The remembered session's dead root; null when the tree was found from markers alone. */
    root: z.object({ pid, startTime }).strict().nullable(),
    runId: z.null(),
    leaseId: z.null(),
    why: z.string(),
    processes: z.array(agentLeakProcessSchema).min(1),
  })
  .strict();
export type AgentLeakGroup = z.infer<typeof agentLeakGroupSchema>;
