/** Exit statuses of the `treewarden` CLI; documented in the README and docs/CLI.md. */
export const EXIT_OK = 0;
/** A runtime failure that is not one of the outcomes below (e.g. no process table). */
export const EXIT_FAILURE = 1;
/** `trim`: nothing is alerted (the session, kind or identities asked for hold no pile-up now). */
export const EXIT_NOTHING_TO_TRIM = 1;
/** Bad flags or out-of-bound values; nothing was launched or signalled. */
export const EXIT_USAGE = 2;
/** `kill --start` named a different process (or the kill was refused): nothing was signalled. */
export const EXIT_REFUSED = 3;
export const EXIT_TIMEOUT = 124;
export const EXIT_KILL_FAILED = 125;
export const EXIT_LAUNCH_FAILURE = 126;
export const EXIT_MISSING_BINARY = 127;
/** Shell convention: a process ended by signal n exits 128 + n. */
export const SIGNAL_EXIT_BASE = 128;
