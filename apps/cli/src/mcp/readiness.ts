/**
 * Waits, bounded, until a started run is ready: its output matched `readyPattern`, its tree
 * listens on `port`, or (with neither) its root was spawned. The run ending first ends the wait
 * too, so a missing binary or a crash is reported at once rather than after the bound.
 */
import { createEntryLookup, createPortReader, describeListeners, type PortReader } from '@treewarden/engine';
import type { SessionRun } from './session-runs.js';

/** How often the tree's sockets are read while waiting for a port (the bench's overhead floor). */
export const READY_PORT_POLL_MS = 20;
/**
 * Every this many polls the whole machine's listeners are read and tied to the run by its cookie:
 * a descendant the guardian has not reported yet (its tree refresh is periodic) still counts.
 */
export const READY_FULL_READ_EVERY = 10;
/** How much of the latest output a pattern is tried against (a line split across chunks still matches). */
export const READY_MATCH_WINDOW_CHARS = 64 * 1024;

export type Readiness =
  | { readonly state: 'ready'; readonly by: 'pattern' | 'port' | 'spawn'; readonly afterMs: number }
  | { readonly state: 'ended' }
  | { readonly state: 'not_ready'; readonly waitedMs: number };

export interface ReadyWait {
  readonly readyPattern?: RegExp;
  readonly port?: number;
  readonly deadlineMs: number;
}

export function waitUntilReady(
  target: SessionRun,
  wait: ReadyWait,
  ports: PortReader = createPortReader(),
): Promise<Readiness> {
  const started = Date.now();
  return new Promise((resolve) => {
    const cleanups: (() => void)[] = [];
    let settled = false;
    const finish = (result: Readiness) => {
      if (settled) return;
      settled = true;
      for (const cleanup of cleanups) cleanup();
      resolve(result);
    };
    const ready = (by: 'pattern' | 'port' | 'spawn') => finish({ state: 'ready', by, afterMs: Date.now() - started });
    void target.run.outcome.then(() => finish({ state: 'ended' }));
    const timer = setTimeout(() => finish({ state: 'not_ready', waitedMs: Date.now() - started }), wait.deadlineMs);
    cleanups.push(() => clearTimeout(timer));
    if (wait.readyPattern !== undefined) watchPattern(target, wait.readyPattern, () => ready('pattern'), cleanups);
    if (wait.port !== undefined) watchPort(target, wait.port, ports, () => ready('port'), cleanups);
    if (wait.readyPattern === undefined && wait.port === undefined) watchSpawn(target, () => ready('spawn'), cleanups);
  });
}

/**
 * Each chunk is tried together with the carried end of what came before (from a line start where
 * one is near), never the whole window again: a trickle of tiny chunks costs its own length, not
 * 64 KiB per chunk. A match longer than the carry that straddles a chunk boundary is the one
 * thing not seen.
 */
export const READY_MATCH_CARRY_CHARS = 4 * 1024;

function carryOf(text: string): string {
  const tail = text.slice(-READY_MATCH_CARRY_CHARS);
  const lineStart = tail.indexOf('\n');
  return lineStart >= 0 && lineStart < tail.length - 1 ? tail.slice(lineStart + 1) : tail;
}

function watchPattern(target: SessionRun, pattern: RegExp, onMatch: () => void, cleanups: (() => void)[]): void {
  const matches = (text: string) => {
    // A global or sticky pattern keeps lastIndex between tests; readiness asks only "anywhere?".
    pattern.lastIndex = 0;
    return pattern.test(text);
  };
  const window = target.output.read({ tail: READY_MATCH_WINDOW_CHARS }).text;
  let carry = carryOf(window);
  cleanups.push(
    target.output.subscribe((text) => {
      const tried = carry + text;
      carry = carryOf(tried);
      if (matches(tried)) onMatch();
    }),
  );
  if (matches(window)) onMatch();
}

function watchPort(
  target: SessionRun,
  port: number,
  ports: PortReader,
  onListening: () => void,
  cleanups: (() => void)[],
): void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  cleanups.push(() => {
    stopped = true;
    clearTimeout(timer);
  });
  let polls = 0;
  const probe = async () => {
    polls += 1;
    const listening =
      polls % READY_FULL_READ_EVERY === 0
        ? await anyMemberListens(target, port, ports)
        : await membersListen(target, port, ports);
    if (stopped) return;
    if (listening) onListening();
    else timer = setTimeout(() => void probe(), READY_PORT_POLL_MS);
  };
  void probe();
}

async function membersListen(target: SessionRun, port: number, ports: PortReader): Promise<boolean> {
  const pids = target.members().map((member) => member.pid);
  if (pids.length === 0) return false;
  const map = await ports.readForPids(pids).catch(() => null);
  return map?.listeners.some((listener) => listener.port === port) ?? false;
}

/** Any process carrying the run's cookie listens on the port (read from the whole machine). */
async function anyMemberListens(target: SessionRun, port: number, ports: PortReader): Promise<boolean> {
  const map = await ports.readAll().catch(() => null);
  const onPort = map?.listeners.filter((listener) => listener.port === port) ?? [];
  if (onPort.length === 0) return false;
  const rows = describeListeners(onPort, await createEntryLookup());
  return rows.some((row) => row.runId === target.id);
}

function watchSpawn(target: SessionRun, onSpawn: () => void, cleanups: (() => void)[]): void {
  if (target.run.identity !== null) {
    onSpawn();
    return;
  }
  cleanups.push(
    target.run.subscribe((event) => {
      if (event.type === 'spawned') onSpawn();
    }),
  );
}
