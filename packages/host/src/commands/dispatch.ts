/** One command to its handler; every handler is named after the command it runs. */
import type { Command } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { CpuTracker } from '../snapshot/process-node.js';
import { cleanAgentLeaks } from './agent-commands.js';
import { cleanOrphans, killTree, releaseLease } from './kill-commands.js';
import { retryRun, runScenario, startRun } from './run-commands.js';
import { getActivity, getHistory, listScenarios, setPollInterval, watchSystem } from './view-commands.js';

export async function dispatchCommand(
  context: HostContext,
  command: Command,
  clientId: string,
  systemCpu: CpuTracker,
  sessionCpu: CpuTracker,
): Promise<unknown> {
  switch (command.type) {
    case 'startRun':
      return startRun(context, command);
    case 'killTree':
      return killTree(context, command);
    case 'retryRun':
      return retryRun(context, command);
    case 'releaseLease':
      return releaseLease(context, command);
    case 'cleanOrphans':
      return cleanOrphans(context, command);
    case 'cleanAgentLeaks':
      return cleanAgentLeaks(context, command, sessionCpu);
    case 'listScenarios':
      return listScenarios(context);
    case 'runScenario':
      return runScenario(context, command);
    case 'setPollInterval':
      return setPollInterval(context, command);
    case 'watchSystem':
      return watchSystem(context, command, clientId, systemCpu);
    case 'getHistory':
      return getHistory(context, command);
    case 'getActivity':
      return getActivity(context, command);
  }
}
