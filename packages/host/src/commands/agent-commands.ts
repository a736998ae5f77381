/**
 * cleanAgentLeaks: ends what agent sessions leaked, through the engine's agent clean-up (one
 * revalidated tree kill per leaked subtree; a subtree that now holds a process the leak did not
 * name is refused whole). The leaks are judged again first, from a fresh observation: only
 * processes that are still leaked, of the session asked for, and that the user confirmed (the
 * `targets` identities, always named: there is no "clean everything" without a list) are signalled. Trees found from markers alone need their own ask.
 */
import { type AgentLeak, identityKey, readProcEntry } from '@treewarden/engine';
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { buildAgentViews } from '../snapshot/session-views.js';
import { CommandRefusedError } from './run-commands.js';

type CleanResult = CommandResult<'cleanAgentLeaks'>['processes'][number];
type Target = { readonly pid: number; readonly startTime: string };

/** Why a confirmed identity is not in the fresh leaks: gone, recycled, or no longer judged leaked. */
function unmatched(target: Target, sessionId: string | null): CleanResult {
  const current = readProcEntry(target.pid);
  if (current === null || current.state === 'Z') return { ...target, sessionId, result: 'already_gone' };
  if (current.startTime !== target.startTime)
    return {
      ...target,
      sessionId,
      result: 'refused',
      detail: `pid ${target.pid} now belongs to a different process (start time ${current.startTime}); nothing was signalled`,
    };
  return {
    ...target,
    sessionId,
    result: 'refused',
    detail: 'no longer judged leaked (its session may live again, or the evidence changed); nothing was signalled',
  };
}

/** The fresh leaks the command covers, each narrowed to the confirmed identities. */
function selectLeaks(leaks: readonly AgentLeak[], command: CommandOf<'cleanAgentLeaks'>): AgentLeak[] {
  const wanted = new Set(command.targets.map(identityKey));
  return leaks
    .filter((leak) => command.sessionId === undefined || leak.sessionId === command.sessionId)
    .filter((leak) => leak.root !== null || command.includeMarkersOnly === true)
    .map((leak) => ({
      ...leak,
      processes: leak.processes.filter(({ entry }) => wanted.has(identityKey(entry))),
    }))
    .filter((leak) => leak.processes.length > 0);
}

function markersOnlyRefusal(target: Target, sessionId: string | null): CleanResult {
  return {
    ...target,
    sessionId,
    result: 'refused',
    detail:
      'found from agent markers alone (no remembered session): clean it with the separate markers-only confirmation',
  };
}

export async function handleCleanAgentLeaks(
  context: HostContext,
  command: CommandOf<'cleanAgentLeaks'>,
  sessionCpu: CpuTracker,
): Promise<CommandResult<'cleanAgentLeaks'>> {
  const { port } = context;
  if (port.observeAgents === undefined || port.cleanAgentLeaks === undefined)
    throw new CommandRefusedError('this host does not observe agent sessions: nothing was signalled');
  // Judge again now: the snapshot the user confirmed may be a poll old.
  const scan = await port.observeAgents(context.reader);
  if (scan === null)
    throw new CommandRefusedError('agent sessions could not be observed just now: nothing was signalled; try again');
  context.agentScan = scan;
  context.agentViews = buildAgentViews(scan, sessionCpu);
  const selected = selectLeaks(scan.leaks, command);
  const results: CleanResult[] = [];
  for (const cleaned of await port.cleanAgentLeaks(selected)) {
    for (const process of cleaned.processes)
      results.push({
        pid: process.pid,
        startTime: process.startTime,
        sessionId: cleaned.leak.sessionId,
        result: process.result,
        ...(process.detail === undefined ? {} : { detail: process.detail }),
      });
  }
  const handled = new Set(results.map(identityKey));
  const markersOnly = new Set(
    scan.leaks
      .filter((leak) => leak.root === null)
      .flatMap((leak) => leak.processes.map(({ entry }) => identityKey(entry))),
  );
  for (const target of command.targets) {
    if (handled.has(identityKey(target))) continue;
    const sessionId = command.sessionId ?? null;
    results.push(
      markersOnly.has(identityKey(target)) && command.includeMarkersOnly !== true
        ? markersOnlyRefusal(target, sessionId)
        : unmatched(target, sessionId),
    );
  }
  context.requestPoll();
  return { processes: results };
}
