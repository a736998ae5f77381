/**
 * One command to its handler, typed end to end: the handler table has exactly one entry per
 * command type, each taking that command and answering that command's result type, so a new
 * command without a handler, or a handler answering the wrong shape, fails to compile. (The host
 * still checks each result against the protocol's schema at run time: the UI validates replies.)
 */
import type { CommandOf, CommandResult, CommandType } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { cleanAgentLeaks } from './agent-commands.js';
import { getExportSettings, setExportSettings } from './export-commands.js';
import { cleanOrphans, killTree, releaseLease } from './kill-commands.js';
import { retryRun, runScenario, startRun } from './run-commands.js';
import { trimSession } from './trim-commands.js';
import { getActivity, getHistory, listScenarios, setPollInterval, watchSystem } from './view-commands.js';

/** What a handler may use besides its command: the host's state and who asked. */
export interface CommandCall {
  readonly context: HostContext;
  readonly clientId: string;
  readonly systemCpu: CpuTracker;
  /** CPU of agent sessions' members, sampled apart from the runs' and the system view's. */
  readonly sessionCpu: CpuTracker;
}

export type CommandHandler<K extends CommandType> = (
  command: CommandOf<K>,
  call: CommandCall,
) => Promise<CommandResult<K>>;

/** Every command type maps to its handler; a missing or mistyped entry is a compile error. */
export type CommandHandlers = { readonly [K in CommandType]: CommandHandler<K> };

export const COMMAND_HANDLERS: CommandHandlers = {
  startRun: (command, { context }) => startRun(context, command),
  killTree: (command, { context }) => killTree(context, command),
  retryRun: (command, { context }) => retryRun(context, command),
  releaseLease: (command, { context }) => releaseLease(context, command),
  cleanOrphans: (command, { context }) => cleanOrphans(context, command),
  cleanAgentLeaks: (command, { context, sessionCpu }) => cleanAgentLeaks(context, command, sessionCpu),
  trimSession: (command, { context, sessionCpu }) => trimSession(context, command, sessionCpu),
  listScenarios: async (_command, { context }) => listScenarios(context),
  runScenario: (command, { context }) => runScenario(context, command),
  setPollInterval: async (command, { context }) => setPollInterval(context, command),
  watchSystem: (command, { context, clientId, systemCpu }) => watchSystem(context, command, clientId, systemCpu),
  getHistory: async (command, { context }) => getHistory(context, command),
  getActivity: async (command, { context }) => getActivity(context, command),
  getExportSettings: async (_command, { context }) => getExportSettings(context),
  setExportSettings: (command, { context }) => setExportSettings(context, command),
};

export function dispatchCommand<K extends CommandType>(
  command: CommandOf<K>,
  call: CommandCall,
): Promise<CommandResult<K>> {
  const type: K = command.type;
  const handler: CommandHandler<K> = COMMAND_HANDLERS[type];
  return handler(command, call);
}
