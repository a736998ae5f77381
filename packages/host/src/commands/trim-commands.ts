/**
 * trimSession: ends exactly the alerted processes of a live agent session's pile-up, through the
 * engine's trim (one revalidated tree kill per alerted set; a set whose tree now holds a process
 * the alert did not name is refused whole). The alerts are judged again first, from a fresh
 * observation: only identities the user confirmed (`targets`, always named) that are still
 * alerted in that session (and of the kind asked for) are signalled; every other one is answered
 * with why, and nothing is signalled for it.
 */
import { selectTrim } from '@treewarden/engine';
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { buildAgentViews } from '../snapshot/session-views.js';
import { CommandRefusedError } from './run-commands.js';

type TrimResult = CommandResult<'trimSession'>['processes'][number];

export async function handleTrimSession(
  context: HostContext,
  command: CommandOf<'trimSession'>,
  sessionCpu: CpuTracker,
): Promise<CommandResult<'trimSession'>> {
  const { port } = context;
  if (port.observeAgents === undefined || port.trimSessionAlerts === undefined)
    throw new CommandRefusedError('this host does not judge agent sessions: nothing was signalled');
  // Judge again now: the snapshot the user confirmed may be a poll old.
  const scan = await port.observeAgents(context.reader);
  if (scan === null)
    throw new CommandRefusedError('agent sessions could not be observed just now: nothing was signalled; try again');
  context.agentScan = scan;
  context.agentViews = buildAgentViews(scan, sessionCpu);
  const selection = selectTrim(scan.alerts, {
    sessionId: command.sessionId,
    ...(command.kind === undefined ? {} : { kind: command.kind }),
    targets: command.targets,
  });
  const results: TrimResult[] = selection.refused.map(({ pid, startTime, result, detail }) => ({
    pid,
    startTime,
    result,
    ...(detail === undefined ? {} : { detail }),
  }));
  for (const trimmed of await port.trimSessionAlerts(selection.alerts))
    for (const { pid, startTime, result, detail } of trimmed.processes)
      results.push({ pid, startTime, result, ...(detail === undefined ? {} : { detail }) });
  context.requestPoll();
  return { processes: results };
}
