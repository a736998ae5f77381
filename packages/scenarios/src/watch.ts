/**
 * The scenario watchdog: polls the census while a scenario unfolds, narrates processes appearing
 * and going, remembers every process it saw, and trips when the scenario holds more live
 * processes than its bound allows.
 */
import { type CensusEntry, describeProcess, liveMembers, type MembershipCache, scanScenario } from './census.js';
import type { SeenProcess } from './types.js';

/** Census period: fast enough to see short-lived members, slow enough to stay cheap on 2 cores. */
export const WATCH_INTERVAL_MS = 250;

/** Past this many processes appearing (or going) in one tick, the narration summarises. */
const MAX_NARRATED_PER_TICK = 4;

export interface WatchOptions {
  readonly runId: string;
  readonly dir: string;
  readonly maxProcesses: number;
  readonly startedAtMs: number;
  readonly step: (text: string) => void;
  /** Called once when the live count passes `maxProcesses`. */
  readonly onExceeded: (reason: string) => void;
}

export interface ScenarioWatch {
  /** Every process seen so far, in order of first sighting. */
  seen(): readonly SeenProcess[];
  /** Highest live count observed. */
  peak(): number;
  /** One census now (also narrates); returns the live members. */
  poll(): CensusEntry[];
  stop(): void;
}

/** A zombie whose parent is a live member: a real never-reaping parent, not a process being killed. */
function isMemberParent(census: ReadonlyMap<string, CensusEntry>, zombie: CensusEntry): boolean {
  for (const entry of census.values()) if (entry.pid === zombie.ppid && !entry.zombie) return true;
  return false;
}

function keyOf(entry: { pid: number; startTime: string }): string {
  return `${entry.pid}:${entry.startTime}`;
}

export function startWatch(options: WatchOptions): ScenarioWatch {
  const seen = new Map<string, SeenProcess>();
  let current = new Map<string, CensusEntry>();
  let peak = 0;
  let exceeded = false;
  let rootSid: number | undefined;
  const cache: MembershipCache = new Map();

  /** One line per process, or one summary line when a tick brings a crowd (a fork loop). */
  function narrate(entries: readonly CensusEntry[], verb: string, describe: (entry: CensusEntry) => string): void {
    if (entries.length > MAX_NARRATED_PER_TICK) {
      const names = [...new Set(entries.map((entry) => entry.command))].join(', ');
      options.step(`${verb}: ${entries.length} processes (${names})`);
      return;
    }
    for (const entry of entries) options.step(`${verb}: ${describe(entry)}`);
  }

  function poll(): CensusEntry[] {
    const entries = scanScenario(options.runId, options.dir, cache);
    const all = new Map(entries.map((entry) => [keyOf(entry), entry]));
    // A zombie of a non-member parent is a process that just died and awaits reaping: for the
    // narration it is gone. A zombie under a live member is the never-reaping parent's doing.
    const next = new Map([...all].filter(([, entry]) => !entry.zombie || isMemberParent(all, entry)));
    const now = Date.now() - options.startedAtMs;
    const appeared: CensusEntry[] = [];
    for (const [key, entry] of next) {
      const before = current.get(key);
      if (rootSid === undefined && !entry.zombie) rootSid = entry.sid;
      if (before === undefined) appeared.push(entry);
      else if (!before.zombie && entry.zombie) options.step(`became a zombie: ${describeProcess(entry, rootSid)}`);
      const known = seen.get(key);
      seen.set(key, {
        pid: entry.pid,
        startTime: entry.startTime,
        ppid: entry.ppid,
        pgid: entry.pgid,
        sid: entry.sid,
        command: entry.commandLine || entry.command,
        firstSeenMs: known?.firstSeenMs ?? now,
        zombie: entry.zombie || (known?.zombie ?? false),
        unreapedBy: known?.unreapedBy ?? (entry.zombie ? entry.ppid : null),
      });
    }
    narrate(appeared, 'appeared', (entry) => describeProcess(entry, rootSid));
    narrate(
      [...current].filter(([key]) => !next.has(key)).map(([, entry]) => entry),
      'gone',
      (entry) => `${entry.pid} ${entry.command}`,
    );
    current = next;
    const live = liveMembers(entries);
    peak = Math.max(peak, live.length);
    if (!exceeded && live.length > options.maxProcesses) {
      exceeded = true;
      options.onExceeded(`${live.length} live processes exceed the bound of ${options.maxProcesses}`);
    }
    return live;
  }

  // Each census is a full /proc walk: wait at least twice as long as the last one took, so the
  // watch never takes more than a third of a core, however many processes the machine runs.
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    const began = Date.now();
    try {
      poll();
    } catch {
      // A census that fails once (a racing /proc read) is retried on the next tick.
    }
    if (stopped) return;
    timer = setTimeout(tick, Math.max(WATCH_INTERVAL_MS, 2 * (Date.now() - began)));
    timer.unref();
  };
  timer = setTimeout(tick, WATCH_INTERVAL_MS);
  timer.unref();
  return {
    seen: () => [...seen.values()],
    peak: () => peak,
    poll,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
