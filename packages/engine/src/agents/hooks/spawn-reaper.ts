/**
 * Starting the SessionEnd reaper from the engine API (`handleHookEvent`): the same detached spawn
 * as the CLI's fast path (hook-end-fast.ts): its own session, stdio ignored (no inherited pipe
 * keeps the agent's hook output open), cwd `/`, no agent marker in its environment.
 */
import { spawnDetachedReaper } from './hook-end-fast.js';
import type { ReaperConfig } from './run-reaper.js';

export { REAPER_ENTRY } from './hook-end-fast.js';

/** The reaper's pid; throws when it could not be started (the hook reports that on stderr). */
export function spawnReaper(config: ReaperConfig): number {
  return spawnDetachedReaper(config.stateRoot, config);
}
