/**
 * `treewarden mcp`'s own entry (main.ts picks it for `mcp`): an MCP server stays up for a whole
 * agent session, so it loads only what it uses, not every command's modules (the host, the
 * scenarios, the WebSocket server). Same exit statuses and error handling as cli.ts.
 */
import { endNativeThreads, isStateDirError } from '@treewarden/engine';
import { isUsageError } from './commands/command.js';
import { mcpCommand } from './commands/mcp.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';
import { writeText } from './terminal-text.js';

export async function runMcp(argv: readonly string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    await writeText(process.stdout, `usage: ${mcpCommand.usage}\n`);
    return 0;
  }
  // A vanished client must not crash the server with EPIPE; the session's end is handled in mcp.ts.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  try {
    return await mcpCommand.main(argv);
  } catch (error) {
    if (isUsageError(error) || isStateDirError(error)) {
      await writeText(process.stderr, `treewarden mcp: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await writeText(process.stderr, `treewarden mcp: ${message}\n`);
    return EXIT_FAILURE;
  } finally {
    // A thread stopped by the exit while it defines a koffi binding aborts the process.
    await endNativeThreads();
  }
}
