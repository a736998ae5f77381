/**
 * The shape of an agent rules file (the built-in one and users' `<state dir>/agent-rules/*.json`),
 * checked with zod before anything is compiled. Patterns are JavaScript regular expressions.
 */
import { MEMBER_ROLES, type MemberRole } from '@treewarden/protocol/vocabulary';
import { z } from 'zod';

/** Longest accepted pattern: rules are hand-written, and a bound keeps a hostile file cheap to reject. */
export const MAX_PATTERN_CHARS = 300;
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const pattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_CHARS)
  .refine((source) => compiles(source), { message: 'is not a valid regular expression' });

function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every pattern present must match: argv[0], argv[1], `script` (the first argument after argv[0]
 * that is not an option: what `node --expose-gc …/cli.js` runs), or the whole argv joined with spaces.
 */
const argvShape = z
  .object({
    argv0: pattern.optional(),
    argv1: pattern.optional(),
    script: pattern.optional(),
    commandLine: pattern.optional(),
    evidence: z.string().max(500).optional(),
  })
  .strict()
  .refine(
    (shape) =>
      shape.argv0 !== undefined ||
      shape.argv1 !== undefined ||
      shape.script !== undefined ||
      shape.commandLine !== undefined,
    { message: 'needs at least one of argv0, argv1, script, commandLine' },
  );

export const markerRuleSchema = z
  .object({
    /** Environment variable name. */
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/),
    /** Pattern the value must match; any value counts when absent. */
    value: pattern.optional(),
    /** `session`: the value names the agent session; `root-pid`: the value is the agent root's pid. */
    names: z.enum(['session', 'root-pid']).optional(),
    /**
     * Who carries it. `started` (the default): the agent puts it on what it starts, so a process
     * with the agent's argv shape carrying it was started by the agent (a subagent), never a root.
     * `self`: the agent (or its launcher) puts it on its own process too (CODEX_MANAGED_BY_NPM on
     * Codex's vendor binary): it marks what inherits it, but never disqualifies a root.
     */
    on: z.enum(['started', 'self']).optional(),
    evidence: z.string().max(500).optional(),
  })
  .strict();

/** Where the id `stop` takes is read: a capture group of a pattern over one argument, or over a variable's value. */
const stopIdSource = z
  .object({
    arg: pattern.optional(),
    env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/)
      .optional(),
    value: pattern.optional(),
  })
  .strict()
  .refine((source) => (source.arg !== undefined) !== (source.env !== undefined && source.value !== undefined), {
    message: 'needs either arg, or env with value',
  });

/**
 * An agent that runs its sessions under a long-lived daemon (Claude Code's `--bg`): the daemon and
 * its workers are one family; each session a worker runs is a session of its own.
 */
const daemonRuleSchema = z
  .object({
    /** The daemon process. */
    roots: z.array(argvShape).min(1).max(20),
    /** Its workers (pty hosts, spares): the daemon's while it lives, a session's root once one runs a session. */
    workers: z.array(argvShape).max(20),
    /**
     * A pattern whose group 1, over one argument of a worker, names the daemon's family (its socket
     * directory): a dead daemon's workers naming a live daemon's key were adopted by it.
     */
    familyKey: pattern.optional(),
    /** How long the daemon's workers may outlive a daemon that exited on its own (they shut down after it). */
    lingerSeconds: z.number().min(0).max(600),
    /**
     * The agent's own way to end one session, tried before the engine's kill: `binary` looked up on
     * PATH, `args` with `{id}` replaced by an id read from the leaked processes (`ids`).
     */
    stop: z
      .object({
        binary: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
        args: z.array(z.string().min(1).max(100)).min(1).max(10),
        ids: z.array(stopIdSource).min(1).max(10),
        timeoutMs: z.number().int().min(100).max(30_000),
      })
      .strict()
      .optional(),
    evidence: z.string().max(1000).optional(),
  })
  .strict();

export const agentRuleSchema = z
  .object({
    id: z.string().regex(AGENT_ID_PATTERN, 'lowercase letters, digits, ".", "_" and "-"'),
    name: z.string().min(1).max(100),
    roots: z.array(argvShape).max(50),
    markers: z.array(markerRuleSchema).max(50),
    daemon: daemonRuleSchema.optional(),
  })
  .strict();

/** The role vocabulary is the protocol's, one list for engine and UI. */
export const memberRoles = MEMBER_ROLES;
export type { MemberRole };

/** Roles a rule tells by argv alone. */
export const ARGV_ROLES = ['mcp-server', 'shell', 'browser', 'language-server', 'watcher'] as const;
export type ArgvRole = (typeof ARGV_ROLES)[number];

/** Role rules for members told apart by argv; `dev-server` (a listening socket) and `subagent` are built in. */
const roleRuleSchema = z
  .object({
    role: z.enum(ARGV_ROLES),
    argv0: pattern.optional(),
    argv1: pattern.optional(),
    script: pattern.optional(),
    commandLine: pattern.optional(),
  })
  .strict();

export const rulesFileSchema = z
  .object({
    version: z.literal(1),
    notes: z.array(z.string().max(2000)).max(50).optional(),
    agents: z.array(agentRuleSchema).max(100),
    roles: z.array(roleRuleSchema).max(100).optional(),
  })
  .strict();

export type RulesFile = z.infer<typeof rulesFileSchema>;
export type AgentRuleInput = z.infer<typeof agentRuleSchema>;
