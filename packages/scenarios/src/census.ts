/**
 * The scenario census: which processes belong to a scenario, read straight from /proc. A process
 * belongs when it carries the scenario's run cookie in its environment or works inside the
 * scenario's private directory (the guardian's leak check); a zombie belongs when its parent does
 * (a zombie's environ and cwd are gone). This is the survivor scan the tests assert on.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isZombie, parseProcStat, readRunCookies } from '@treewarden/engine';

export interface CensusEntry {
  readonly pid: number;
  readonly startTime: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly state: string;
  /** Short name (`comm`). */
  readonly command: string;
  /** argv joined with spaces (empty for zombies). */
  readonly commandLine: string;
  readonly cwd: string | null;
  readonly zombie: boolean;
  /** Why it belongs: the cookie, the cwd, or (zombies) its parent. */
  readonly why: 'cookie' | 'cwd' | 'parent';
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return null;
  }
}

function readCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

function isInside(path: string | null, dir: string): boolean {
  return path !== null && (path === dir || path.startsWith(`${dir}/`));
}

function toEntry(pid: number, statText: string, why: CensusEntry['why'], cwd: string | null): CensusEntry | null {
  const stat = parseProcStat(statText);
  if (stat === null) return null;
  const cmdline = readText(`/proc/${pid}/cmdline`) ?? '';
  return {
    pid,
    startTime: stat.startTicks,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    state: stat.state,
    command: stat.command,
    commandLine: cmdline.replace(/\0+$/, '').replaceAll('\0', ' '),
    cwd,
    zombie: isZombie(stat),
    why,
  };
}

/**
 * Remembers, per identity, why a process belongs (or that it does not), so a census repeated
 * every few hundred ms reads each environment and cwd once per process, not once per tick:
 * with thousands of processes on a busy machine, that is the difference between a bare stat loop
 * and three reads per process. An environment is fixed at exec; a process that later moves its
 * cwd into the scenario dir is caught by the uncached scans (survivors, cleanup), not the watch.
 */
export type MembershipCache = Map<string, CensusEntry['why'] | null>;

/** Bound on the cache: past it, it is simply cleared (identities of dead processes pile up). */
const MAX_CACHED_IDENTITIES = 50_000;

function belongsBy(pid: number, runId: string, dir: string): 'cookie' | 'cwd' | null {
  if (readRunCookies(pid)?.runId === runId) return 'cookie';
  return isInside(readCwd(pid), dir) ? 'cwd' : null;
}

function cachedBelongsBy(pid: number, startTicks: string, runId: string, dir: string, cache?: MembershipCache) {
  if (cache === undefined) return belongsBy(pid, runId, dir);
  const key = `${pid}:${startTicks}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const why = belongsBy(pid, runId, dir);
  if (cache.size >= MAX_CACHED_IDENTITIES) cache.clear();
  cache.set(key, why);
  return why;
}

/**
 * Every process of the scenario identified by `runId` and `dir`, zombies included (flagged).
 * Never includes this process. A process that vanishes mid-read is skipped.
 */
export function scanScenario(runId: string, dir: string, cache?: MembershipCache): CensusEntry[] {
  if (process.platform !== 'linux') return [];
  const found = new Map<number, CensusEntry>();
  const zombies: { pid: number; ppid: number; statText: string }[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const statText = readText(`/proc/${pid}/stat`);
    const stat = statText === null ? null : parseProcStat(statText);
    if (statText === null || stat === null) continue;
    if (isZombie(stat)) zombies.push({ pid, ppid: stat.ppid, statText });
    const why = cachedBelongsBy(pid, stat.startTicks, runId, dir, cache);
    if (why === null) continue;
    const entry = toEntry(pid, statText, why, readCwd(pid));
    if (entry !== null) found.set(pid, entry);
  }
  // Zombies carry no environ and no cwd: they belong through the parent that has not reaped them.
  for (const zombie of zombies) {
    if (found.has(zombie.pid) || !found.has(zombie.ppid)) continue;
    const entry = toEntry(zombie.pid, zombie.statText, 'parent', null);
    if (entry !== null) found.set(zombie.pid, entry);
  }
  return [...found.values()];
}

/** The live (non-zombie) members: zombies count as stopped. */
export function liveMembers(entries: readonly CensusEntry[]): CensusEntry[] {
  return entries.filter((entry) => !entry.zombie);
}

/** "1234 node run-forever.mjs (own session)" for step-by-step output. */
export function describeProcess(entry: CensusEntry, rootSid?: number): string {
  const args = entry.commandLine.length > 0 ? shortenCommandLine(entry.commandLine) : `[${entry.command}]`;
  const notes: string[] = [];
  if (entry.zombie) notes.push(`zombie, parent ${entry.ppid} has not reaped it`);
  else if (entry.ppid === 1) notes.push('reparented to pid 1');
  if (rootSid !== undefined && !entry.zombie && entry.sid !== rootSid) notes.push(`own session ${entry.sid}`);
  return `${entry.pid} ${args}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

const MAX_COMMAND_LINE_CHARS = 90;

/** Drops directories from paths so `node /long/path/fixtures/x.mjs` reads `node x.mjs`. */
export function shortenCommandLine(commandLine: string): string {
  const short = commandLine
    .split(' ')
    .map((word) => (word.startsWith('/') && word.includes('/', 1) ? word.slice(word.lastIndexOf('/') + 1) : word))
    .join(' ');
  return short.length > MAX_COMMAND_LINE_CHARS ? `${short.slice(0, MAX_COMMAND_LINE_CHARS - 1)}…` : short;
}
