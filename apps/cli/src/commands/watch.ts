/**
 * `treewarden watch [--json] [--auto-clean SECONDS] [--session ID]… [--print-unit]`: a foreground observer of agent
 * sessions (Ctrl-C ends it). It remembers sessions' trees in the state dir while it runs, so leaks
 * keep their evidence after reparenting, and prints session-started, session-ended, leak-found and
 * (with --auto-clean, off by default) leak-cleaned events; `--json`: one JSON object per line.
 * Live sessions' pile-ups are reported as alert-found / alert-cleared (once per alert id), and
 * trimmed (alert-trimmed) only for the kinds the user opted into in agent-alerts.json. With
 * `--session`, only the named sessions are reported, and only theirs can be ended.
 */
import { parseArgs } from 'node:util';
import {
  type AgentEvent,
  type AgentLeak,
  type AgentObservation,
  type AgentRules,
  cleanAgentLeaks,
  createAgentWatcher,
  createTickWaiter,
  leakGroupRow,
  stopWithAgent,
  WATCH_TICK_MS,
} from '@treewarden/engine';
import { parseSeconds, writeOut } from '../args.js';
import { EXIT_OK } from '../exit-codes.js';
import { terminalText, writeText } from '../terminal-text.js';
import { agentContext } from './agent-context.js';
import { type CliCommand, UsageError } from './command.js';
import { alertConfig } from './session-alerts.js';
import { inScope, parseSessionScope, type SessionScope, scopeObservation } from './session-scope.js';
import { createWatchAlerts } from './watch-alerts.js';
import { serviceUnit } from './watch-unit.js';

const USAGE = 'treewarden watch [--json] [--auto-clean SECONDS] [--session ID]... [--print-unit]';
const OPTIONS = {
  json: { type: 'boolean' },
  'auto-clean': { type: 'string' },
  'print-unit': { type: 'boolean' },
  session: { type: 'string', multiple: true },
} as const;
/** The longest accepted --auto-clean delay (a day): longer is a typo more often than a wish. */
const MAX_AUTO_CLEAN_SECONDS = 86_400;

type Emit = (event: Record<string, unknown>, text: string) => Promise<void>;

function eventSessionId(event: AgentEvent): string {
  return event.type === 'leak-found' ? event.leak.sessionId : event.session.id;
}

function eventsInScope(events: readonly AgentEvent[], scope: SessionScope): AgentEvent[] {
  return events.filter((event) => inScope(scope, eventSessionId(event)));
}

function eventLine(event: AgentEvent): [Record<string, unknown>, string] {
  if (event.type === 'leak-found') {
    const group = leakGroupRow(event.leak);
    return [
      { type: event.type, ...group, newPids: event.newPids },
      `leak: ${terminalText(event.leak.agent)} ${terminalText(event.leak.sessionId)}: ${event.newPids.join(' ')} (${terminalText(event.leak.why)})`,
    ];
  }
  if (event.type === 'session-cleaned') {
    const { session, cleanup } = event;
    return [
      {
        type: event.type,
        id: session.id,
        agent: session.agent,
        sessionId: session.hook?.sessionId ?? null,
        ended: cleanup.ended,
        survivors: cleanup.survivors,
        note: cleanup.note,
      },
      `session-cleaned: ${terminalText(session.agent)} ${terminalText(session.id)} by its SessionEnd hook: ${terminalText(cleanup.note)}`,
    ];
  }
  const { session } = event;
  const body = {
    type: event.type,
    id: session.id,
    agent: session.agent,
    root: { pid: session.root.pid, startTime: session.root.startTime },
    cwd: session.cwd,
  };
  return [
    body,
    `${event.type}: ${terminalText(session.agent)} ${terminalText(session.id)} in ${terminalText(session.cwd ?? '?')}`,
  ];
}

/**
 * When each current leak's session ended: the remembered end, or for a marker-only leak (no
 * remembered session) when this watcher first saw it. Rebuilt each tick, so it holds current leaks only.
 */
function leakClocks(previous: ReadonlyMap<string, number>, observation: AgentObservation): Map<string, number> {
  const ends = new Map(observation.sessions.map((session) => [session.id, session.endedAtMs]));
  const clocks = new Map<string, number>();
  for (const leak of observation.leaks)
    clocks.set(leak.sessionId, ends.get(leak.sessionId) ?? previous.get(leak.sessionId) ?? Date.now());
  return clocks;
}

/** Leaked processes not yet tried: a refused or surviving process is reported once, not every tick. */
function untried(leak: AgentLeak, attempted: Set<string>): AgentLeak | null {
  const processes = leak.processes.filter(({ entry }) => !attempted.has(`${entry.pid}:${entry.startTime}`));
  for (const { entry } of processes) attempted.add(`${entry.pid}:${entry.startTime}`);
  return processes.length > 0 ? { ...leak, processes } : null;
}

async function autoClean(
  leaks: readonly AgentLeak[],
  endedAt: ReadonlyMap<string, number>,
  delayMs: number,
  context: { readonly ledgerFile: string; readonly attempted: Set<string>; readonly rules: AgentRules },
  emit: Emit,
): Promise<void> {
  const now = Date.now();
  const { ledgerFile, attempted } = context;
  // Only remembered sessions' leaks: trees found from markers alone are reported, never auto-ended.
  const due = leaks
    .filter((leak) => leak.root !== null && now - (endedAt.get(leak.sessionId) ?? now) >= delayMs)
    .flatMap((leak) => untried(leak, attempted) ?? []);
  if (due.length === 0) return;
  // The agent's own stop first (a dead daemon's sessions: `claude stop ID`), then the revalidated kill.
  const stopFirst = (leak: AgentLeak) => stopWithAgent(leak, context.rules);
  for (const cleaned of await cleanAgentLeaks(due, { ledgerFile, stopFirst })) {
    await emit(
      {
        type: 'leak-cleaned',
        sessionId: cleaned.leak.sessionId,
        agent: cleaned.leak.agent,
        processes: cleaned.processes,
      },
      `cleaned ${cleaned.leak.sessionId}: ${cleaned.processes.map((p) => `${p.pid} ${p.result}`).join(', ')}`,
    );
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true });
  if (values['print-unit'] === true) {
    await writeOut(process.stdout, serviceUnit(process.platform, process.execPath, process.argv[1] ?? 'treewarden'));
    return EXIT_OK;
  }
  const autoCleanSeconds = parseSeconds('--auto-clean', values['auto-clean']);
  if (autoCleanSeconds !== undefined && (autoCleanSeconds < 0 || autoCleanSeconds > MAX_AUTO_CLEAN_SECONDS))
    throw new UsageError(`--auto-clean ${autoCleanSeconds} is outside 0…${MAX_AUTO_CLEAN_SECONDS} seconds`);
  const scope = parseSessionScope(values.session);
  const context = agentContext();
  for (const problem of context.rulesProblems ?? [])
    await writeText(process.stderr, `treewarden: ${problem.file}: ${problem.message}\n`);
  const emit: Emit = async (event, text) =>
    values.json === true
      ? writeOut(process.stdout, `${JSON.stringify(event)}\n`)
      : writeText(process.stdout, `${text}\n`);
  const watcher = createAgentWatcher(context);
  const alerts = createWatchAlerts(await alertConfig(context.stateRoot), context.ledgerFile);
  let endedAt = new Map<string, number>();
  const attempted = new Set<string>();
  let stopping = false;
  // Between ticks: a live root's exit ticks at once (told by pidfd; without, a 250 ms look).
  const waiter = createTickWaiter();
  const stop = (): void => {
    stopping = true;
    waiter.interrupt();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  while (!stopping) {
    // The watcher remembers every session it sees (their trees keep their evidence); a scope narrows
    // what is told and what may be ended, never what is remembered.
    const tick = watcher.tick();
    const observation = scopeObservation(tick.observation, scope);
    for (const event of eventsInScope(tick.events, scope)) await emit(...eventLine(event));
    await alerts.tick(observation, emit);
    endedAt = leakClocks(endedAt, observation);
    if (autoCleanSeconds !== undefined)
      await autoClean(
        observation.leaks,
        endedAt,
        autoCleanSeconds * 1000,
        { ledgerFile: context.ledgerFile, attempted, rules: context.rules },
        emit,
      );
    await waiter.wait(watcher.liveRoots(), WATCH_TICK_MS);
  }
  waiter.close();
  watcher.close();
  return EXIT_OK;
}

export const watchCommand: CliCommand = {
  summary: 'observe agent sessions in the foreground; report (and with --auto-clean end) their leaks',
  usage: USAGE,
  main,
};
