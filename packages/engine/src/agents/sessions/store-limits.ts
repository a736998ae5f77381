/** Bounds of what the session store keeps per argv (no zod here: the hooks' fast path imports them). */
/** Longest argv kept per member: enough to recognise it, bounded so a hostile argv cannot bloat the store. */
export const MAX_STORED_ARGS = 64;
export const MAX_STORED_ARG_CHARS = 512;
