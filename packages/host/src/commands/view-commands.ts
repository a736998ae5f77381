/** listScenarios, setPollInterval, watchSystem and getHistory: what the views ask for. */
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
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
): Promise<CommandResult<'watchSystem'>> {
  if (command.ports === true && command.enabled) context.systemPortWatchers.add(clientId);
  else context.systemPortWatchers.delete(clientId);
  if (!command.enabled) {
    context.systemWatchers.delete(clientId);
    if (context.systemWatchers.size === 0) context.systemRows.resync();
    return { enabled: false, processes: [] };
  }
  context.systemWatchers.add(clientId);
  const table = await context.reader.readAll();
  if (table === null) throw new CommandRefusedError('the process table could not be read; try again');
  // This update's diff goes to nobody: the next poll's is full, for every watcher.
  context.systemRows.update(table.entries, table.readAtMs, context.runs.values());
  context.systemRows.resync();
  context.requestPoll();
  return { enabled: true, processes: context.systemRows.nodes() };
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
