/** listScenarios, setPollInterval, watchSystem and getHistory: what the views ask for. */
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { buildSystemTable } from '../snapshot/system-table.js';
import { CommandRefusedError } from './run-commands.js';

export const DEFAULT_HISTORY_LIMIT = 200;
/** Activity lines restored after a reload when the UI names no limit. */
export const DEFAULT_ACTIVITY_LIMIT = 30;

export function handleListScenarios(context: HostContext): CommandResult<'listScenarios'> {
  return { scenarios: [...context.port.listScenarios()] };
}

export function handleSetPollInterval(
  context: HostContext,
  command: CommandOf<'setPollInterval'>,
): CommandResult<'setPollInterval'> {
  context.pollIntervalMs = command.intervalMs;
  context.requestPoll();
  return { intervalMs: context.pollIntervalMs };
}

/**
 * Starting to watch answers with the whole table at once (the view fills immediately) and marks
 * the next pushed diff as full, so every watcher resynchronises from the same base.
 */
export async function handleWatchSystem(
  context: HostContext,
  command: CommandOf<'watchSystem'>,
  clientId: string,
  systemCpu: CpuTracker,
): Promise<CommandResult<'watchSystem'>> {
  if (command.ports === true && command.enabled) context.systemPortWatchers.add(clientId);
  else context.systemPortWatchers.delete(clientId);
  if (!command.enabled) {
    context.systemWatchers.delete(clientId);
    if (context.systemWatchers.size === 0) context.systemTable = null;
    return { enabled: false, processes: [] };
  }
  context.systemWatchers.add(clientId);
  const table = await context.reader.readAll();
  if (table === null) throw new CommandRefusedError('the process table could not be read; try again');
  const nodes = buildSystemTable(table.entries, table.readAtMs, systemCpu, context.runs.values());
  context.systemTable = null;
  context.requestPoll();
  return { enabled: true, processes: [...nodes.values()] };
}

export function handleGetHistory(context: HostContext, command: CommandOf<'getHistory'>): CommandResult<'getHistory'> {
  return { entries: [...context.port.readHistory(command.limit ?? DEFAULT_HISTORY_LIMIT)] };
}

export function handleGetActivity(
  context: HostContext,
  command: CommandOf<'getActivity'>,
): CommandResult<'getActivity'> {
  return { entries: [...context.port.readActivity(command.limit ?? DEFAULT_ACTIVITY_LIMIT)] };
}
