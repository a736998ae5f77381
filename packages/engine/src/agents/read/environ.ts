/**
 * Agent markers from a process's environment. An environment is set by exec and never changes
 * until the next exec, which keeps the pid and start time: so it is read once per identity
 * `(pid, startTime)` *and program* (the `command` and `args` the caller's table shows, when given)
 * and cached (bounded). A shell that execs `env CLAUDECODE=1 claude …` (a Claude team's pane) is
 * read again once it shows the new argv, not judged by the shell's environment for good. Reuses
 * the run-cookie reader's bounded /proc/PID/environ read. Only the variables some rule names are kept.
 */
import { readEnvironBounded } from '../../membership/cookie.js';
import { readLiveStartTime } from '../../signal/start-time.js';
import { readProcArgs2 } from '../../table/darwin-procargs.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';

/** Identities whose markers are remembered; the oldest are forgotten first. */
export const MAX_CACHED_ENVIRONS = 16_384;

/** Marker variables found (name → value); null when the environment could not be read. */
export type MarkerVars = ReadonlyMap<string, string>;
/** What a reader is asked about: an identity, with the program its table entry shows where known. */
export type MarkerSubject = ProcessIdentity & { readonly command?: string; readonly args?: readonly string[] };
export type MarkerReader = (identity: MarkerSubject) => MarkerVars | null;

/** Picks the named variables out of a NUL-separated environ block. */
export function parseMarkerVars(environ: Buffer, names: ReadonlySet<string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const variable of environ.toString('utf8').split('\0')) {
    const equals = variable.indexOf('=');
    if (equals <= 0) continue;
    const name = variable.slice(0, equals);
    if (names.has(name)) found.set(name, variable.slice(equals + 1));
  }
  return found;
}

/** The raw environment block: /proc on Linux, KERN_PROCARGS2 on macOS; null elsewhere. */
function readEnvironment(pid: number): Buffer | null {
  if (process.platform === 'linux') return readEnvironBounded(pid);
  const args = readProcArgs2(pid);
  return args === null ? null : Buffer.from(args.env.join('\0'), 'utf8');
}

interface CachedMarkers {
  readonly command: string | undefined;
  readonly args: readonly string[] | undefined;
  readonly vars: MarkerVars;
}

/** Whether the subject still runs the program its markers were read from (an exec changes argv and comm). */
function sameProgram(cached: CachedMarkers, subject: MarkerSubject): boolean {
  if (subject.command !== undefined && cached.command !== undefined && subject.command !== cached.command) return false;
  const now = subject.args;
  const then = cached.args;
  if (now === undefined || then === undefined || now === then) return true;
  return now.length === then.length && now.every((arg, i) => arg === then[i]);
}

/** Linux re-checks the start time after the read; macOS start times come from `ps` and are not re-read here. */
function isSameIdentity(identity: ProcessIdentity): boolean {
  return process.platform !== 'linux' || readLiveStartTime(identity.pid) === identity.startTime;
}

/**
 * A cached reader (Linux /proc, macOS sysctl). The environ read comes after the table read: on
 * Linux the start time is checked again afterwards, so a recycled pid's environment is never
 * attributed to the old identity.
 */
export function createMarkerReader(names: ReadonlySet<string>): MarkerReader & { readonly size: () => number } {
  const cache = new Map<string, CachedMarkers>();
  const read = (identity: MarkerSubject): MarkerVars | null => {
    const key = identityKey(identity);
    const cached = cache.get(key);
    if (cached !== undefined && sameProgram(cached, identity)) return cached.vars;
    const environ = readEnvironment(identity.pid);
    const vars = environ !== null && isSameIdentity(identity) ? parseMarkerVars(environ, names) : null;
    // An unreadable environ (zombie, gone) is not cached: a later read of a live identity may work.
    if (vars === null) return null;
    // Re-set (after an exec) moves the key to the newest end, so the bound drops the oldest first.
    cache.delete(key);
    cache.set(key, { command: identity.command, args: identity.args, vars });
    if (cache.size > MAX_CACHED_ENVIRONS) cache.delete(cache.keys().next().value as string);
    return vars;
  };
  return Object.assign(read, { size: () => cache.size });
}
