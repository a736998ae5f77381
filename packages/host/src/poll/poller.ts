/**
 * The poll loop. Each tick reads the table in the worker — the whole system only while some view
 * watches it, otherwise just the owned trees — then updates run membership and pushes a snapshot
 * (and a system diff to watchers). Ticks are serialised and the next one is scheduled only after
 * the previous finished, so a slow machine gets fewer polls, never a pile-up of reads.
 */

import { homedir } from 'node:os';
import {
  createExitWatch,
  createRootWatch,
  identityKey,
  indexChildren,
  isIdentityAlive,
  type ProcessEntry,
  type ProcessIdentity,
  type ProcessTable,
  ROOT_CHECK_INTERVAL_MS,
} from '@treewarden/engine';
import type { OrphanView } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { HostLease, Orphan, OrphanScanResult } from '../engine/port.js';
import { buildSnapshot } from '../snapshot/build-snapshot.js';
import { collectLeases } from '../snapshot/lease-entries.js';
import { type CpuTracker, toProcessNode } from '../snapshot/process-node.js';
import { buildAgentViews } from '../snapshot/session-views.js';
import type { SystemDiff } from '../snapshot/system-diff.js';
import { createLeakWatch, liveMembers } from './leak-watch.js';
import { createPortWatch, type PortScope } from './port-watch.js';

/** Sent with every snapshot so the UI can show paths in the host's sentences from `~`. */
const HOME_DIR = homedir();
/** The children index of a tick without runs: nobody reads it. */
const NO_CHILDREN: ReadonlyMap<number, readonly number[]> = new Map();

/** After a start or kill the next poll comes this soon, so the UI sees the change at once. */
export const REQUESTED_POLL_DELAY_MS = 50;
/**
 * The orphan scan reads the whole table and every process's environment (in the worker). It runs
 * this often while a view shows the system, at the slow interval otherwise, and right after a
 * run or lease ended (when leaks appear) — so an idle app does no full scans between them.
 */
export const ORPHAN_SCAN_INTERVAL_MS = 5000;
export const ORPHAN_SCAN_IDLE_INTERVAL_MS = 60_000;

export interface Poller {
  start(): void;
  /** Makes the next tick scan for orphans (a run or lease just ended). */
  requestOrphanScan(): void;
  /** Schedules a tick soon (coalesced). */
  request(): void;
  /** Runs one tick now (waits for one in flight first). */
  tick(): Promise<void>;
  stop(): void;
}

export interface PollerDeps {
  readonly context: HostContext;
  readonly heldLeases: () => readonly HostLease[];
  readonly ownedCpu: CpuTracker;
  /** CPU of agent sessions' processes (their reads come from the agent observer, not the table). */
  readonly sessionCpu: CpuTracker;
  /**
   * Live roots' exits told by the kernel (pidfd; default where available) instead of the timer
   * look every ROOT_CHECK_INTERVAL_MS. False: the timer look (the bench's A/B, tests of it).
   */
  readonly rootExitEvents?: boolean;
}

export function toOrphanView(orphan: Orphan): OrphanView {
  return {
    runId: orphan.runId,
    leaseId: orphan.leaseId,
    kind: orphan.kind,
    reasons: [...orphan.reasons],
    process: toProcessNode(orphan.process, 0, false),
  };
}

/**
 * A fresh engine orphan scan; runs it settled (supervisors dead, nothing left) end at once here
 * too, so the screen does not wait for the ledger to be read again. A run the host still sees a
 * live process of is never settled.
 */
export async function scanLeaks(context: HostContext): Promise<void> {
  const stillAlive = (runId: string) => {
    if (context.cleaningRuns.has(runId)) return true;
    const record = context.runs.get(runId);
    return record !== undefined && liveMembers(record) > 0;
  };
  const result: OrphanScanResult = await context.port.findOrphans(context.reader, stillAlive);
  context.orphans = result.orphans.map(toOrphanView);
  for (const { runId, reason } of result.settled) {
    const record = context.runs.get(runId);
    if (record === undefined || record.phase === 'ended') continue;
    record.phase = 'ended';
    record.endedAtMs = context.now();
    record.classification = 'cancelled';
    record.endReason = reason;
    record.unsupervised = false;
    context.emit({ type: 'runEnded', runId, classification: 'cancelled', exitCode: null, error: reason });
  }
}

/**
 * One tick of the agent observer (in the worker). Every poll, so a leak shows within a poll
 * interval of its session's death; a failed tick keeps the last views rather than showing none.
 */
export async function observeAgentSessions(context: HostContext, sessionCpu: CpuTracker): Promise<void> {
  if (context.port.observeAgents === undefined) return;
  const scan = await context.port.observeAgents(context.reader);
  if (scan === null) return;
  context.agentScan = scan;
  context.agentViews = buildAgentViews(scan, sessionCpu);
}

/** Between scans, a leak that died since (exited, or killed by anyone) leaves the list at the next tick. */
function dropDeadOrphans(context: HostContext): void {
  const alive = context.orphans.filter((orphan) => isIdentityAlive(orphan.process));
  if (alive.length !== context.orphans.length) context.orphans = alive;
}

async function readTable(context: HostContext, watching: boolean): Promise<ProcessTable | null> {
  if (watching) return context.reader.readAll();
  const roots = new Set<number>();
  for (const record of context.runs.values()) {
    for (const pid of record.membership.pids()) roots.add(pid);
    if (record.root !== null && record.phase !== 'ended') roots.add(record.root.pid);
  }
  if (roots.size === 0) return { entries: new Map(), readAtMs: Date.now() };
  return context.reader.readTrees([...roots]);
}

/**
 * Live agent sessions' roots and their agent processes as the last tick saw them: a launcher that
 * dies first (Codex's npm shim, Gemini's relaunch) leaves the agent working, and the agent's end
 * is what makes its leftovers news.
 */
function liveSessionRoots(context: HostContext): ProcessIdentity[] {
  return (context.agentScan?.rows ?? [])
    .filter((row) => row.state === 'live')
    .flatMap((row) => [
      row.root,
      ...row.members.filter((member) => member.role === 'agent').map(({ pid, startTime }) => ({ pid, startTime })),
    ]);
}

export function createPoller({ context, heldLeases, ownedCpu, sessionCpu, rootExitEvents = true }: PollerDeps): Poller {
  let timer: NodeJS.Timeout | null = null;
  let rootCheck: NodeJS.Timeout | null = null;
  const rootWatch = createRootWatch();
  // Null where pidfds are missing (not Linux, no koffi): the timer look stands in.
  let exitWatch = rootExitEvents
    ? createExitWatch(
        (exited) => rootsExited(exited),
        () => {
          // Its thread failed: the timer look takes over from the next arming on.
          exitWatch = null;
          armRootCheck();
        },
      )
    : null;
  // The live sessions' roots as the last tick left them: what every look until the next tick reads.
  let watchedRoots: readonly ProcessIdentity[] = [];
  // Roots whose exit already asked for a tick: a failed observer tick must not turn into a poll storm.
  const exitTold = new Set<string>();
  let inFlight: Promise<void> | null = null;
  let lastOrphanScan = Number.NEGATIVE_INFINITY;
  let stopped = true;
  const leakWatch = createLeakWatch();
  const portWatch = createPortWatch((pids) => context.reader.readPorts(pids));

  async function runTick(): Promise<void> {
    const leases = collectLeases(context, heldLeases());
    const watching = context.systemWatchers.size > 0;
    const table = await readTable(context, watching);
    if (table === null) return; // No table this time: keep the last snapshot rather than show a partial one.
    const owned = new Map<number, ProcessEntry>();
    // Once per tick, not once per run; and not at all without runs (a ~1,000-entry index a
    // second, for nothing, while only the system view polls).
    const children = context.runs.size > 0 ? indexChildren(table.entries) : NO_CHILDREN;
    for (const record of context.runs.values()) {
      record.membership.update(table.entries, children);
      for (const entry of record.membership.entries()) owned.set(entry.pid, entry);
    }
    const scanEvery = watching ? ORPHAN_SCAN_INTERVAL_MS : ORPHAN_SCAN_IDLE_INTERVAL_MS;
    // A lease whose holder and guardian just died is judged in this tick, not at the next slow scan.
    if (leakWatch.changed(context.runs.values())) lastOrphanScan = Number.NEGATIVE_INFINITY;
    if (context.now() - lastOrphanScan >= scanEvery) {
      lastOrphanScan = context.now();
      await scanLeaks(context);
    } else dropDeadOrphans(context);
    await observeAgentSessions(context, sessionCpu);
    const cpuPercents = ownedCpu.sample(owned, table.readAtMs);
    // The full port map only while a system view shows its Ports column; else the owned trees'.
    const portScope: PortScope = watching && context.systemPortWatchers.size > 0 ? 'all' : 'owned';
    await portWatch.refresh(portScope, [...owned.keys()], context.now());
    const snapshot = buildSnapshot({
      leases,
      orphans: context.orphans,
      agents: context.agentViews,
      cpuPercents,
      listeningOf: portWatch.listeningOf,
      pollIntervalMs: context.pollIntervalMs,
      now: context.now(),
      ...(context.port.warnings === undefined ? {} : { warnings: context.port.warnings }),
      ...(context.port.cgroup === undefined ? {} : { capabilities: { cgroup: context.port.cgroup } }),
      homeDir: HOME_DIR,
    });
    // The system diff is made before either is sent, so the two go out back to back: a UI applies
    // what arrives together in one render (the renderer's event batch), not two renders per poll.
    let diff: SystemDiff | null = null;
    if (watching && context.systemWatchers.size > 0) {
      const listeningOf = portScope === 'all' ? portWatch.listeningOf : undefined;
      diff = context.systemRows.update(
        table.entries,
        table.readAtMs,
        context.runs.values(),
        listeningOf,
        table.changes,
      );
    }
    context.emit({ type: 'snapshot', snapshot });
    if (diff !== null) context.emit({ type: 'systemDiff', ...diff });
  }

  let dueAt = Number.POSITIVE_INFINITY;

  /** Keeps the earliest due tick: a request never postpones one already due sooner. */
  function schedule(delayMs: number): void {
    if (stopped) return;
    const at = Date.now() + delayMs;
    if (timer !== null && at >= dueAt) return;
    if (timer !== null) clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => {
      timer = null;
      dueAt = Number.POSITIVE_INFINITY;
      void tick().finally(() => schedule(context.pollIntervalMs));
    }, delayMs);
  }

  /** Ticks are serialised; a tick asked for during another starts after it, from a fresh read. */
  async function tick(): Promise<void> {
    while (inFlight !== null) await inFlight;
    const current = runTick()
      .catch((error: unknown) => {
        // A failed tick must not end polling; the next one starts from fresh reads.
        process.emitWarning(`treewarden host: poll failed: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        if (inFlight === current) inFlight = null;
        armRootCheck();
      });
    inFlight = current;
    return current;
  }

  /**
   * A root that exited makes its session's leftovers news, so the next poll comes at once and the
   * leak shows moments after the agent's death instead of up to a poll interval later. The kernel
   * tells the exit (the exit watch's pidfds); only without pidfds does this timer look read each
   * live root's stat every ROOT_CHECK_INTERVAL_MS (then within about a quarter second).
   */
  function checkRoots(): void {
    if (inFlight !== null) return;
    rootsExited(rootWatch.exited(watchedRoots));
  }

  /**
   * Roots that exited ask for a tick soon, once each. Told by the exit watch during a tick too: the
   * tick asked for then waits for the one in flight and reads afresh (at worst one tick more).
   */
  function rootsExited(roots: readonly ProcessIdentity[]): void {
    const exited = roots.filter((root) => !exitTold.has(identityKey(root)));
    if (exited.length === 0) return;
    for (const root of exited) exitTold.add(identityKey(root));
    schedule(REQUESTED_POLL_DELAY_MS);
  }

  /**
   * The roots are re-judged after every tick. The exit watch is handed them (the same set again
   * costs nothing); the timer look, its fallback, runs only while a live session exists (with
   * none, its wakeups found nothing to check and were an idle host's steadiest cost), and the
   * looks until the next tick share one list of roots (none of them allocates a list).
   */
  function armRootCheck(): void {
    watchedRoots = stopped ? [] : liveSessionRoots(context);
    // Once a tick saw the session end, its root leaves the live list and need not be remembered.
    const live = new Set(watchedRoots.map(identityKey));
    for (const key of exitTold) if (!live.has(key)) exitTold.delete(key);
    if (exitWatch !== null) {
      // The kernel tells exits: no timer, no look between ticks. The same roots again cost nothing.
      exitWatch.watch(watchedRoots);
      return;
    }
    const wanted = watchedRoots.length > 0;
    if (wanted && rootCheck === null) {
      rootCheck = setInterval(checkRoots, ROOT_CHECK_INTERVAL_MS);
      rootCheck.unref();
    } else if (!wanted && rootCheck !== null) {
      clearInterval(rootCheck);
      rootCheck = null;
      rootWatch.close();
    }
  }

  return {
    start() {
      stopped = false;
      schedule(0);
    },
    request: () => schedule(REQUESTED_POLL_DELAY_MS),
    requestOrphanScan() {
      lastOrphanScan = Number.NEGATIVE_INFINITY;
      schedule(REQUESTED_POLL_DELAY_MS);
    },
    tick,
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (rootCheck !== null) clearInterval(rootCheck);
      rootCheck = null;
      rootWatch.close();
      exitWatch?.close();
    },
  };
}
