/** The in-host exporter's settings: read, and saved and applied (validated by the command schema). */
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';

export function handleGetExportSettings(context: HostContext): CommandResult<'getExportSettings'> {
  return context.exporter.status();
}

export function handleSetExportSettings(
  context: HostContext,
  command: CommandOf<'setExportSettings'>,
): Promise<CommandResult<'setExportSettings'>> {
  return context.exporter.apply(command.settings);
}
