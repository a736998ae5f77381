/**
 * The words the engine and every UI share: run classifications, kill results, kill timeline
 * actions, the timeout bounds, and the names and bounds of the run limits. Defined once, here; the engine imports them from
 * `@treewarden/protocol/vocabulary` and the schemas below build on them, so the two can never
 * drift. Plain constants, no imports: the engine loads this without zod, the renderer bundles it.
 */

/** How a run ended. `timeout` and `kill_failed` are distinct: the tree outliving every attempt is `kill_failed`. */
export const CLASSIFICATIONS = [
  'ok',
  'error',
  'timeout',
  'kill_failed',
  'missing_binary',
  'launch_failure',
  'usage_limit',
  'auth_failure',
  'cancelled',
  'memory_limit',
  'process_limit',
  'cpu_limit',
  'stalled',
] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

/**
 * Who ended a run that did not end on its own: a person from the app (`ui`), `treewarden kill`
 * (`cli`), an MCP client (`mcp`), the run's timeout or one of its limits, or its lease ending.
 * A person's kill is classified `cancelled` (never `error`); timeout and limits keep their own
 * classifications, and `killedBy` says the same in one field wherever a run's end is shown.
 */
/**
 * What a member of an agent session is to it, told by argv, markers and ancestry. `agent`: the
 * agent's own relaunched process (Gemini's relaunched child, Codex's vendor binary). `teammate`: an
 * agent-team member (`claude --agent-id NAME@TEAM`); `tmux-server`: a tmux server the session
 * started (a team's `tmux -L claude-swarm-PID`, or one a member's client created).
 */
export const MEMBER_ROLES = [
  'mcp-server',
  'shell',
  'dev-server',
  'browser',
  'language-server',
  'watcher',
  'subagent',
  'teammate',
  'tmux-server',
  'agent',
  'other',
] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const KILLERS = ['ui', 'cli', 'mcp', 'timeout', 'limit', 'lease'] as const;
export type Killer = (typeof KILLERS)[number];

/**
 * The `kill` ledger record's reason for each person's kill, so an end seen by a supervisor as a
 * death by signal can be told apart from a crash.
 */
export const KILL_REASON_OF_KILLER = { ui: 'ui_kill', cli: 'cli_kill', mcp: 'mcp_kill' } as const;

/**
 * `killed`: every member verified dead; `already_gone`: nothing was alive to kill;
 * `kill_failed`: members survived every attempt (listed in `survivors`);
 * `refused`: identity became uncertain or the target was protected; nothing was signalled.
 */
export const KILL_RESULTS = ['killed', 'already_gone', 'kill_failed', 'refused'] as const;
export type KillResult = (typeof KILL_RESULTS)[number];

/**
 * One step of a tree kill as the timeline shows it. `observe` is a read only; `stop` is the
 * freeze's SIGSTOP (the pids it froze) and `continue` the SIGCONT that resumes a tree the kill
 * froze and could not end. Ledger records written before `stop` existed log the freeze as
 * `observe` with the detail "freeze round N: SIGSTOP".
 */
export const KILL_TIMELINE_ACTIONS = [
  'observe',
  'SIGTERM',
  'stop',
  'SIGKILL',
  'continue',
  'verify',
  'retry',
  'fallback-direct',
  'refused',
] as const;
export type KillTimelineAction = (typeof KILL_TIMELINE_ACTIONS)[number];

/** A run's timeout bounds (seconds), checked before anything launches; a null timeout is refused too. */
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 5400;

/** How a limit is named in `--json`, the ledger and the UI: the CLI flag without its dashes. */
export const LIMIT_NAMES = ['max-memory', 'max-procs', 'max-cpu', 'idle-timeout'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** How a run's limits were enforced: by polling the owned tree, or from the run's own cgroup v2. */
export const LIMIT_ENFORCEMENTS = ['polling', 'cgroup'] as const;
/** What one limit was checked against (the engine's LimitMethod; the engine takes the list from here). */
export const LIMIT_METHODS = ['polling', 'cgroup.procs', 'cpu.stat', 'memory.stat', 'output'] as const;

/** Below 1 MiB not even a shell starts; the limit would only ever be a false positive. */
export const MIN_MEMORY_LIMIT_BYTES = 1024 * 1024;
/** 16 TiB: far above any machine this runs on; larger is a typo (`2000T`), not a limit. */
export const MAX_MEMORY_LIMIT_BYTES = 16 * 1024 ** 4;
export const MIN_PROCS_LIMIT = 1;
/** Above the default `pid_max` (32,768) twice over: a larger cap would never trip. */
export const MAX_PROCS_LIMIT = 65_536;
export const MIN_CPU_LIMIT_SECONDS = 1;
/** About 5,400 s of wall time on 185 busy cores: larger is a typo. */
export const MAX_CPU_LIMIT_SECONDS = 1_000_000;
export const MIN_IDLE_TIMEOUT_SECONDS = 1;
/** An idle timeout longer than the longest run could never trip. */
export const MAX_IDLE_TIMEOUT_SECONDS = MAX_TIMEOUT_SECONDS;

/**
 * Pile-ups judged inside a live agent session (not leaks: the session still runs). Each alert
 * names the exact identities it is about and why; trimming ends exactly those.
 */
export const SESSION_ALERT_KINDS = ['duplicate-servers', 'stale-subagents', 'runaway-job', 'budget', 'fd-hog'] as const;
export type SessionAlertKind = (typeof SESSION_ALERT_KINDS)[number];
