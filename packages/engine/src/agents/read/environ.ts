/**
 * Agent markers from a process's environment. An environment never changes after exec, so it is
 * read once per identity `(pid, startTime)` and cached (bounded). Reuses the run-cookie reader's
 * bounded /proc/PID/environ read. Only the variables some rule names are kept.
 */
import { readEnvironBounded } from '../../membership/cookie.js';
import { readLiveStartTime } from '../../signal/start-time.js';
import { readProcArgs2 } from '../../table/darwin-procargs.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';

/** Identities whose markers are remembered; the oldest are forgotten first. */
export const MAX_CACHED_ENVIRONS = 16_384;

/** Marker variables found (name → value); null when the environment could not be read. */
export type MarkerVars = ReadonlyMap<string, string>;
export type MarkerReader = (identity: ProcessIdentity) => MarkerVars | null;

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
  const cache = new Map<string, MarkerVars | null>();
  const read = (identity: ProcessIdentity): MarkerVars | null => {
    const key = identityKey(identity);
    if (cache.has(key)) return cache.get(key) ?? null;
    const environ = readEnvironment(identity.pid);
    const vars = environ !== null && isSameIdentity(identity) ? parseMarkerVars(environ, names) : null;
    // An unreadable environ (zombie, gone) is not cached: a later read of a live identity may work.
    if (vars === null) return null;
    cache.set(key, vars);
    if (cache.size > MAX_CACHED_ENVIRONS) cache.delete(cache.keys().next().value as string);
    return vars;
  };
  return Object.assign(read, { size: () => cache.size });
}
