/**
 * Entry of the detached SessionEnd reaper (`spawnReaper`): its config in the private hand-off
 * file its one argument names (reaper-handoff.ts), read, removed and validated; runs once and exits. Its own session, no inherited pipes, so the agent's hook pipe
 * closes when the hook returns. Nothing here ever throws out: a reaper that failed says so in
 * the session's record, not on a terminal nobody reads.
 */
import { readHandoff } from './reaper-handoff.js';
import { REAPER_AGENT_EXIT_TIMEOUT_MS, reaperConfigSchema, runReaper } from './run-reaper.js';
import { runSessionEnd, sessionEndConfigSchema } from './session-end.js';

/** After the wait for the agent, the clean-up itself (table, environments, kills with grace) gets this long. */
export const REAPER_CLEANUP_BOUND_MS = 60_000;

// The reaper exits by this bound whatever happens: it is never a long-lived process of its own.
setTimeout(() => process.exit(0), REAPER_AGENT_EXIT_TIMEOUT_MS + REAPER_CLEANUP_BOUND_MS).unref();

const raw: unknown = readHandoff(process.argv[2] ?? '');
// From the CLI's SessionEnd fast path (the event as it came), or from handleHookEvent (prepared).
const handOff = sessionEndConfigSchema.safeParse(raw);
const prepared = reaperConfigSchema.safeParse(raw);
try {
  if (handOff.success) await runSessionEnd(handOff.data);
  else if (prepared.success) await runReaper(prepared.data);
} catch {
  // Nothing to tell and no one to tell it to: the record keeps its last state.
}
process.exit(0);
