/**
 * The words the engine and every UI share: run classifications, kill results, kill timeline
 * actions and the timeout bounds. Defined once, here; the engine imports them from
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
 * `killed`: every member verified dead; `already_gone`: nothing was alive to kill;
 * `kill_failed`: members survived every attempt (listed in `survivors`);
 * `refused`: identity became uncertain or the target was protected; nothing was signalled.
 */
export const KILL_RESULTS = ['killed', 'already_gone', 'kill_failed', 'refused'] as const;
export type KillResult = (typeof KILL_RESULTS)[number];

/** One step of a tree kill as the timeline shows it. */
export const KILL_TIMELINE_ACTIONS = [
  'observe',
  'SIGTERM',
  'SIGKILL',
  'verify',
  'retry',
  'fallback-direct',
  'refused',
] as const;
export type KillTimelineAction = (typeof KILL_TIMELINE_ACTIONS)[number];

/** A run's timeout bounds (seconds), checked before anything launches; a null timeout is refused too. */
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 5400;
