/**
 * One command to its handler, typed end to end: the handler table has exactly one entry per
 * command type, each taking that command and answering that command's result type, so a new
 * command without a handler, or a handler answering the wrong shape, fails to compile. (The host
 * still checks each result against the protocol's schema at run time: the UI validates replies.)
 */
import type { CommandOf, CommandResult, CommandType } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { handleCleanAgentLeaks } from './agent-commands.js';
import { handleStopSessionContainers } from './container-commands.js';
import { handleGetExportSettings, handleSetExportSettings } from './export-commands.js';
import { handleCleanOrphans, handleKillTree, handlePreviewKill, handleReleaseLease } from './kill-commands.js';
import { handleRetryRun, handleRunScenario, handleStartRun } from './run-commands.js';
import { handleTrimSession } from './trim-commands.js';
import {
  handleGetActivity,
  handleGetHistory,
  handleListScenarios,
  handleSetPollInterval,
  handleWatchSystem,
} from './view-commands.js';

/** What a handler may use besides its command: the host's state and who asked. */
export interface CommandCall {
  readonly context: HostContext;
  readonly clientId: string;
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
  startRun: (command, { context }) => handleStartRun(context, command),
  killTree: (command, { context }) => handleKillTree(context, command),
  previewKill: (command, { context }) => handlePreviewKill(context, command),
  retryRun: (command, { context }) => handleRetryRun(context, command),
  releaseLease: (command, { context }) => handleReleaseLease(context, command),
  cleanOrphans: (command, { context }) => handleCleanOrphans(context, command),
  cleanAgentLeaks: (command, { context, sessionCpu }) => handleCleanAgentLeaks(context, command, sessionCpu),
  stopSessionContainers: (command, { context }) => handleStopSessionContainers(context, command),
  trimSession: (command, { context, sessionCpu }) => handleTrimSession(context, command, sessionCpu),
  listScenarios: async (_command, { context }) => handleListScenarios(context),
  runScenario: (command, { context }) => handleRunScenario(context, command),
  setPollInterval: async (command, { context }) => handleSetPollInterval(context, command),
  watchSystem: (command, { context, clientId }) => handleWatchSystem(context, command, clientId),
  getHistory: async (command, { context }) => handleGetHistory(context, command),
  getActivity: async (command, { context }) => handleGetActivity(context, command),
  getExportSettings: async (_command, { context }) => handleGetExportSettings(context),
  setExportSettings: (command, { context }) => handleSetExportSettings(context, command),
};

export function dispatchCommand<K extends CommandType>(
  command: CommandOf<K>,
  call: CommandCall,
): Promise<CommandResult<K>> {
  const type: K = command.type;
  const handler: CommandHandler<K> = COMMAND_HANDLERS[type];
  return handler(command, call);
}
