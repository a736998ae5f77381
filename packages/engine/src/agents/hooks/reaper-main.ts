/**
 * Entry of the detached SessionEnd reaper (`spawnReaper`): its config as one JSON argument,
 * validated; runs once and exits. Its own session, no inherited pipes, so the agent's hook pipe
 * closes when the hook returns. Nothing here ever throws out: a reaper that failed says so in
 * the session's record, not on a terminal nobody reads.
 */
import { reaperConfigSchema, runReaper } from './run-reaper.js';

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
