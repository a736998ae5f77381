/**
 * The revalidated tree kill (docs/ARCHITECTURE.md "How a kill works" numbers these steps):
 *   observe → SIGTERM the graceful roots → wait (bounded) → freeze (SIGSTOP until no new member
 *   appears; without a grace period its first round goes out through pidfds pinned to the members
 *   at the last tree walk, before the first look) → SIGKILL every owned group deepest first → verify (bounded, re-observing and
 *   re-killing late forks) → retry (KILL_ATTEMPTS in all), falling back to a direct kill of the
 *   root when a tree signal fails → `kill_failed` with the survivors.
 * Why freeze: a stopped process cannot fork, yet stays alive as the ancestry anchor of whatever
 * it forked just before, so repeated stop+observe rounds converge on the whole tree even when a
 * worker forks into new sessions as fast as it can. A plain kill loop loses every child forked
 * between a read and the SIGKILL of its parent (it is reparented to 1 and looks unrelated).
 * Why no whole-machine read: each signal is revalidated on the owned-tree read just made (see
 * ownership/tree-view.ts for when that is enough, and the fallback when it is not), so the cost
 * of a kill follows the tree, not the machine.
 */
import { IdentityUncertainError } from '../ownership/errors.js';
import type { SignalRequest } from '../ownership/signal-plan.js';
import type { ObserveScope, RevalidatingTreeOwner, SignalReport } from '../ownership/tree-owner.js';
import { otherUserMessage, SignalRefusedError } from '../signal/guards.js';
import type { SignalResult } from '../signal/types.js';
import type { ProcessIdentity, ProcessTable } from '../table/types.js';
import { identityKey, isZombie } from '../table/types.js';
import { createTimeline, type Timeline } from './timeline.js';
import { DEFAULT_GRACE_MS, KILL_ATTEMPTS, type KillOptions, type KillOutcome, type KillResult } from './types.js';

/** Poll interval while waiting out the grace period. */
export const GRACE_POLL_MS = 25;
/** Stop-and-observe rounds before SIGKILL; each round that finds no new member ends the freeze. */
export const FREEZE_ROUNDS = 8;
/** How long one attempt waits for SIGKILLed members to disappear (or become zombies). */
export const VERIFY_TIMEOUT_MS = 3000;
export const VERIFY_POLL_MS = 1;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What the kill needs from an owner, and all it uses: its revalidated observation (`observeRead`,
 * `members`, `uncertainty`), its revalidated, planned signal (`signal`), and for the last-resort
 * direct kill and the thaw, its identity-checked signalling primitives.
 */
export type KillableOwner = Pick<
  RevalidatingTreeOwner,
  'root' | 'runId' | 'reader' | 'signals' | 'observeRead' | 'members' | 'uncertainty' | 'signal'
>;

interface KillRun {
  readonly owner: KillableOwner;
  readonly timeline: Timeline;
  /** Every identity that was a live member at some point during the kill. */
  readonly seen: Map<string, ProcessIdentity>;
  /** Whether our SIGSTOP went out (only then does a failed or refused kill send SIGCONT). */
  frozen?: boolean;
  /** Every identity a SIGSTOP of ours reached, as the table it was revalidated on showed it. */
  readonly stopped: Map<string, ProcessIdentity>;
  /** Set by an observation and used by the signal right after it (no second read); consumed once. */
  lastRead?: { readonly scope: ObserveScope; readonly table: ProcessTable } | undefined;
}

async function observe(run: KillRun, scope: ObserveScope = 'all'): Promise<ProcessIdentity[]> {
  const table = await run.owner.observeRead(scope);
  // An `adopters` read is no view of the trees: a signal must not be revalidated on it.
  run.lastRead = table === null || scope === 'adopters' ? undefined : { scope, table };
  const members = run.owner.members();
  for (const member of members) run.seen.set(identityKey(member), member);
  return [...members];
}

/**
 * The signal request revalidated on the observation just made (consumed once): a tree read is
 * the tree view itself, a whole-machine read the fallback's fresh table.
 */
function revalidatedRequest(run: KillRun): SignalRequest {
  const last = run.lastRead;
  run.lastRead = undefined;
  // A read of the owned pids alone shows no stranger at all: it cannot vouch for a group (a
  // caller's shell or a released daemon in it would be stopped unseen), so the signal reads the trees.
  if (last === undefined || last.scope === 'members') return { treeView: true };
  return last.scope === 'all'
    ? { treeView: true, freshTable: last.table }
    : { treeView: true, freshTreeView: last.table };
}

/**
 * The kill's first look, never a whole-machine read: the owned trees. Only when they look gone
 * does it look for cookie carriers that escaped them, before calling the tree already gone.
 */
async function observeInitially(run: KillRun): Promise<ProcessIdentity[]> {
  // The trees, not the owned pids alone: a SIGTERM may end a parent the owner saw before its
  // children were seen (a run between two observe ticks), whose orphans would then be in no owned
  // tree; and the first SIGSTOP is revalidated on this read, which must show any non-member in an
  // owned group (the caller's shell, a released daemon) before a group signal could reach it.
  // A tree read also lists the children a zombie leader's exiting threads still hold.
  const members = await observe(run, 'trees');
  if (members.length > 0 || run.owner.runId === undefined) return members;
  return observe(run, 'escapes');
}

interface DeathWait {
  readonly boundMs: number;
  readonly pollMs: number;
  /** Re-kill members that appeared while waiting (forks that beat an unconverged freeze). */
  readonly onNew?: () => Promise<void>;
  /**
   * How "all dead" is confirmed before it is believed: `none` when the escapes were already
   * looked for; `escapes` looks for cookie carriers where orphans are reparented (cheap); `all`
   * reads the whole machine (a freeze a fork loop outran, a failed tree signal).
   */
  readonly confirm: 'none' | 'escapes' | 'all';
}

/** Polls until no live member remains or the bound passes; returns the survivors. */
async function waitForDeath(run: KillRun, wait: DeathWait): Promise<ProcessIdentity[]> {
  const deadline = performance.now() + wait.boundMs;
  let known = new Set(run.owner.members().map(identityKey));
  for (;;) {
    // Polls follow the tree; only a run cookie can reveal more than the tree, and only to a whole read.
    let members = await observe(run, 'trees');
    if (members.length === 0 && wait.confirm !== 'none' && run.owner.runId !== undefined)
      members = await observe(run, wait.confirm);
    if (members.length === 0) return [];
    if (wait.onNew !== undefined && members.some((m) => !known.has(identityKey(m)))) await wait.onNew();
    known = new Set(members.map(identityKey));
    if (performance.now() >= deadline) return members;
    await sleep(wait.pollMs);
  }
}

/**
 * Watches a frozen, killed tree die: it cannot fork, so only its own pids matter. While the first
 * member not yet seen dead lives, each poll re-reads it alone (one read per poll, not one per
 * member); once it is dead, the rest are read in one batch, as most died with it. At the bound, a
 * full read of the owned pids gives the survivors.
 */
async function waitForFrozenTreeDeath(run: KillRun, boundMs: number): Promise<ProcessIdentity[]> {
  const readPids = run.owner.reader.readPids;
  if (readPids === undefined) return waitForDeath(run, { boundMs, pollMs: VERIFY_POLL_MS, confirm: 'none' });
  const deadline = performance.now() + boundMs;
  const dead = (identity: ProcessIdentity, table: ProcessTable | null) => {
    const entry = table?.entries.get(identity.pid);
    return entry === undefined || entry.startTime !== identity.startTime || isZombie(entry);
  };
  let pending = [...run.owner.members()];
  while (pending.length > 0 && performance.now() < deadline) {
    const first = pending[0] as ProcessIdentity;
    if (!dead(first, await readPids([first.pid]))) {
      await sleep(VERIFY_POLL_MS);
      continue;
    }
    const rest = pending.slice(1);
    const table = rest.length === 0 ? null : await readPids(rest.map((member) => member.pid));
    pending = rest.filter((member) => !dead(member, table));
  }
  // Every identity was seen dead, one by one: no survivors to re-read.
  if (pending.length === 0) return [];
  return observe(run, 'members');
}

async function terminateGracefully(run: KillRun, graceMs: number): Promise<ProcessIdentity[]> {
  const report = await run.owner.signal('SIGTERM', { graceful: true, ...revalidatedRequest(run) });
  run.timeline.add({ action: 'SIGTERM', groups: report.groups, pids: report.pids });
  return waitForDeath(run, { boundMs: graceMs, pollMs: GRACE_POLL_MS, confirm: 'escapes' });
}

/** How the freeze ended: converged (a tree read after SIGSTOP found nothing new) or outrun. */
interface Freeze {
  readonly converged: boolean;
}

/**
 * Stop everything owned, then re-read the owned trees: a stopped process cannot fork, so a tree
 * read that finds no new member means the freeze holds. Repeat while it finds members that were
 * not stopped. Each SIGSTOP is revalidated on a fresh tree read (whole machine where that read
 * cannot vouch for a group, see ownership/tree-view.ts).
 */
async function freeze(run: KillRun, pinned?: ReadonlySet<string>): Promise<Freeze> {
  let round = 1;
  if (pinned !== undefined) {
    // Round 1 went out through pinned pidfds before the kill's first look, which was its check read.
    if (run.owner.members().every((member) => pinned.has(identityKey(member)))) return { converged: true };
    round = 2;
  }
  for (; round <= FREEZE_ROUNDS; round += 1) {
    let report: SignalReport;
    try {
      report = await run.owner.signal('SIGSTOP', revalidatedRequest(run));
    } catch (error) {
      // An uncertain identity is refused before anything is sent; any other failure may come
      // after some groups were stopped.
      if (!(error instanceof IdentityUncertainError)) run.frozen = true;
      throw error;
    }
    run.frozen = true;
    noteStopped(run, report);
    const stopped = new Set(run.owner.members().map(identityKey));
    run.timeline.add({
      action: 'stop',
      groups: report.groups,
      pids: reachedPids(report),
      detail: `freeze round ${round}`,
    });
    const members = new Set((await observe(run, 'trees')).map(identityKey));
    if ([...members].every((key) => stopped.has(key))) {
      return { converged: true };
    }
  }
  return { converged: false };
}

/**
 * Freeze round 1 with no read before it: SIGSTOP to every live member through the pidfd the
 * owner's reader pinned to it on its last tree walk (table/held-stats.ts). A pidfd names one
 * process, so this reaches no recycled pid, and no group, so no stranger in one. It runs only when
 * every live member has a pinned pidfd and was this user's at that walk, else nothing is sent
 * (null) and the freeze starts with a read as before. A member forked since that walk is not
 * stopped here: the check read that follows finds it under its stopped parent (round 2).
 */
function stopThroughPinned(run: KillRun): ReadonlySet<string> | null {
  const { owner } = run;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const signalPinned = owner.signals.signalPinned?.bind(owner.signals);
  if (signalPinned === undefined || owner.reader.pinnedPidfds === undefined || uid === undefined) return null;
  const members = owner.members();
  if (owner.uncertainty() !== null || members.length === 0) return null;
  const pidfds = owner.reader.pinnedPidfds(members, uid);
  if (pidfds === null) return null;
  run.frozen = true;
  const reached: number[] = [];
  try {
    for (const member of members) {
      if (signalPinned(member, pidfds.get(member.pid) as number, 'SIGSTOP') !== 'sent') continue;
      reached.push(member.pid);
      run.stopped.set(identityKey(member), member);
    }
  } catch {
    // A protected target: resume what was stopped and let the read-first path refuse it with its reason.
    thaw(run, []);
    run.stopped.clear();
    run.frozen = false;
    return null;
  }
  run.timeline.add({ action: 'stop', pids: reached, detail: 'freeze round 1 (pinned pidfds)' });
  return new Set(members.map(identityKey));
}

/** Remembers what a SIGSTOP reached, so a kill that ends short continues all of it, not only members. */
function noteStopped(run: KillRun, report: SignalReport): void {
  for (const pid of reachedPids(report)) {
    const entry = report.table.entries.get(pid);
    if (entry !== undefined) run.stopped.set(identityKey(entry), { pid, startTime: entry.startTime });
  }
}

/**
 * The pids a signal reached: the live members of the groups it went to, as the table it was
 * revalidated on shows them, and the processes it went to one by one.
 */
function reachedPids(report: SignalReport): number[] {
  const groups = new Set(report.groups);
  const inGroups = [...report.table.entries.values()]
    .filter((entry) => groups.has(entry.pgid) && !isZombie(entry))
    .map((entry) => entry.pid);
  return [...new Set([...inGroups, ...report.pids])];
}

/** SIGKILL every owned group, deepest first, revalidated on the read just made (the freeze's last). */
async function killOnce(run: KillRun): Promise<void> {
  const report = await run.owner.signal('SIGKILL', revalidatedRequest(run));
  run.timeline.add({ action: 'SIGKILL', groups: report.groups, pids: report.pids });
}

function outcome(
  run: KillRun,
  result: KillResult,
  attempts: number,
  survivors: readonly ProcessIdentity[],
  error?: string,
): KillOutcome {
  const survivorKeys = new Set(survivors.map(identityKey));
  return {
    result,
    target: run.owner.root,
    attempts,
    killed: [...run.seen.values()].filter((m) => !survivorKeys.has(identityKey(m))),
    survivors,
    timeline: run.timeline.entries,
    ...(error === undefined ? {} : { error }),
    startedAtMs: run.timeline.startedAtMs,
    durationMs: Math.round(run.timeline.elapsedMs()),
  };
}

/**
 * Refusals end the kill at once: an uncertain identity and every guard refusal, a protected target
 * or another user's member (a member that became one after the first look, by a setuid exec).
 * Retrying a guard's EPERM cannot change its answer; it only kept the caller waiting through every
 * attempt's verify bound before `kill_failed`. A kernel EPERM on a group (macOS, a running member
 * the table could not attribute) stays a failure: the direct kill of our own root still helps.
 */
function isRefusal(error: unknown): error is Error {
  return error instanceof IdentityUncertainError || error instanceof SignalRefusedError;
}

/**
 * A member of another user, as the first look's table shows it: the kill is refused before any
 * signal (like the other protections), rather than SIGTERMing our own members and then failing.
 */
function otherUsersMember(run: KillRun, members: readonly ProcessIdentity[]): string | null {
  const self = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const table = run.lastRead?.table;
  if (self === undefined || table === undefined) return null;
  for (const member of members) {
    const entry = table.entries.get(member.pid);
    // uid -1: the platform reports none (Windows); the signal guard is the check there.
    if (entry?.startTime === member.startTime && entry.uid >= 0 && entry.uid !== self) {
      return otherUserMessage(member.pid, entry.uid, self);
    }
  }
  return null;
}

/** Last resort after a failed tree signal: SIGKILL the root itself, identity-checked. */
function killRootDirectly(run: KillRun): void {
  try {
    const result = run.owner.signals.signalProcess(run.owner.root, 'SIGKILL');
    run.timeline.add({ action: 'fallback-direct', pids: [run.owner.root.pid], detail: result });
  } catch (error) {
    run.timeline.add({ action: 'fallback-direct', pids: [run.owner.root.pid], detail: (error as Error).message });
  }
}

interface KillBounds {
  readonly graceMs: number;
  readonly verifyMs: number;
}

/**
 * Looks for the run's escapes (cookie carriers reparented out of the trees) right after the
 * SIGKILL, while the kernel tears the tree down, and kills any it finds with the same check.
 */
async function killEscapes(run: KillRun): Promise<void> {
  const before = new Set(run.owner.members().map(identityKey));
  const members = await observe(run, 'adopters');
  if (members.some((member) => !before.has(identityKey(member)))) await killOnce(run);
}

/**
 * One tree-kill attempt: graceful SIGTERM (first attempt only), freeze, SIGKILL, verify.
 */
async function attemptTreeKill(
  run: KillRun,
  attempt: number,
  survivors: ProcessIdentity[],
  bounds: KillBounds,
  pinned: ReadonlySet<string> | null,
): Promise<ProcessIdentity[]> {
  let remaining = survivors;
  if (attempt === 1 && bounds.graceMs > 0) remaining = await terminateGracefully(run, bounds.graceMs);
  if (remaining.length === 0) return remaining;
  const frozen = await freeze(run, attempt === 1 && pinned !== null ? pinned : undefined);
  await killOnce(run);
  if (!frozen.converged) {
    // A freeze a fork loop outran may have lost members anywhere: only the whole machine tells.
    return waitForDeath(run, {
      boundMs: bounds.verifyMs,
      pollMs: VERIFY_POLL_MS,
      onNew: () => killOnce(run),
      confirm: 'all',
    });
  }
  // A member may have been born and died unseen since the last look, leaving its children
  // reparented: with a run cookie they are found where orphans land, for every kill.
  if (run.owner.runId !== undefined) await killEscapes(run);
  return waitForFrozenTreeDeath(run, bounds.verifyMs);
}

/** The kill of one owner's tree: `killOwnedTree`, injectable where a test scripts the answer. */
export type OwnerKill = (owner: RevalidatingTreeOwner, options: KillOptions) => Promise<KillOutcome>;

/**
 * The kill as a function of an owner: everything it sends goes through the owner's revalidated
 * `signal`, so every signal stays identity-checked against a read made just before it.
 */
export async function killOwnedTree(owner: KillableOwner, options: KillOptions = {}): Promise<KillOutcome> {
  const run: KillRun = { owner, timeline: createTimeline(), seen: new Map(), stopped: new Map() };
  const attempts = Math.max(1, options.attempts ?? KILL_ATTEMPTS);
  const bounds = {
    graceMs: Math.max(0, options.graceMs ?? DEFAULT_GRACE_MS),
    verifyMs: Math.max(0, options.verifyTimeoutMs ?? VERIFY_TIMEOUT_MS),
  };
  // Without a grace period the first freeze round can go out before any read, through pinned
  // pidfds; the first look is then that round's check read.
  const pinned = bounds.graceMs === 0 ? stopThroughPinned(run) : null;
  const initial = await observeInitially(run);
  run.timeline.add({ action: 'observe', pids: initial.map((m) => m.pid) });
  const uncertain = owner.uncertainty() ?? otherUsersMember(run, initial);
  if (uncertain !== null) {
    run.timeline.add({ action: 'refused', detail: uncertain });
    thaw(run, []);
    return outcome(run, 'refused', 0, [], uncertain);
  }
  if (initial.length === 0) return outcome(run, 'already_gone', 0, []);
  let survivors: ProcessIdentity[] = initial;
  let lastError: string | undefined;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (attempt > 1) run.timeline.add({ action: 'retry', detail: `attempt ${attempt} of ${attempts}` });
    try {
      survivors = await attemptTreeKill(run, attempt, survivors, bounds, pinned);
    } catch (error) {
      if (isRefusal(error)) {
        run.timeline.add({ action: 'refused', detail: error.message });
        thaw(run, owner.members());
        return outcome(run, 'refused', attempt, owner.members(), error.message);
      }
      lastError = (error as Error).message;
      killRootDirectly(run);
      survivors = await waitForDeath(run, { boundMs: bounds.verifyMs, pollMs: VERIFY_POLL_MS, confirm: 'all' });
    }
    run.timeline.add({
      action: 'verify',
      pids: survivors.map((s) => s.pid),
      detail: `${survivors.length} survivor(s)`,
    });
    if (survivors.length === 0) return outcome(run, 'killed', attempt, []);
  }
  thaw(run, survivors);
  const reason = lastError ?? `${survivors.length} member(s) survived ${attempts} tree kill attempt(s)`;
  return outcome(run, 'kill_failed', attempts, survivors, reason);
}

/**
 * SIGCONT to one identity: through the pidfd a walk pinned to it where there is one (whatever its
 * uid now: a member that became another user's by a setuid exec after the pinned SIGSTOP reached
 * it must not be left stopped by us), else identity-checked by pid.
 */
function continueProcess(owner: KillableOwner, target: ProcessIdentity): SignalResult {
  const pidfd = owner.reader.pinnedPidfds?.([target])?.get(target.pid);
  if (pidfd !== undefined && owner.signals.signalPinned !== undefined)
    return owner.signals.signalPinned(target, pidfd, 'SIGCONT');
  return owner.signals.signalProcess(target, 'SIGCONT');
}

/**
 * Survivors of a failed or refused kill, and anything else our SIGSTOP reached, are not left
 * frozen (identity-checked SIGCONT; the dead answer ESRCH and are skipped).
 */
function thaw(run: KillRun, survivors: readonly ProcessIdentity[]): void {
  // A process the user stopped on purpose (Ctrl-Z) stays stopped unless we stopped it.
  if (!run.frozen) return;
  const resumed: number[] = [];
  const stopped = new Map(run.stopped);
  for (const survivor of survivors) stopped.set(identityKey(survivor), survivor);
  for (const survivor of stopped.values()) {
    try {
      if (continueProcess(run.owner, survivor) === 'sent') resumed.push(survivor.pid);
    } catch {
      // Protected or gone: nothing to thaw.
    }
  }
  if (resumed.length > 0) run.timeline.add({ action: 'continue', pids: resumed });
}
