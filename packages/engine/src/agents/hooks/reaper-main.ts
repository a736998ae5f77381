/**
 * Entry of the detached SessionEnd reaper (`spawnReaper`): its config as one JSON argument,
 * validated; runs once and exits. Its own session, no inherited pipes, so the agent's hook pipe
 * closes when the hook returns. Nothing here ever throws out: a reaper that failed says so in
 * the session's record, not on a terminal nobody reads.
 */
import { REAPER_AGENT_EXIT_TIMEOUT_MS, reaperConfigSchema, runReaper } from './run-reaper.js';

/** After the wait for the agent, the clean-up itself (table, environments, kills with grace) gets this long. */
export const REAPER_CLEANUP_BOUND_MS = 60_000;

// The reaper exits by this bound whatever happens: it is never a long-lived process of its own.
setTimeout(() => process.exit(0), REAPER_AGENT_EXIT_TIMEOUT_MS + REAPER_CLEANUP_BOUND_MS).unref();

const parsed = reaperConfigSchema.safeParse(
  (() => {
    try {
      return JSON.parse(process.argv[2] ?? '');
    } catch {
      return null;
    }
  })(),
);
if (parsed.success) {
  try {
    await runReaper(parsed.data);
  } catch {
    // Nothing to tell and no one to tell it to: the record keeps its last state.
  }
}
process.exit(0);
