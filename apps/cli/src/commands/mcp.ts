/**
 * `treewarden mcp`: a stdio MCP server an agent starts (`claude mcp add treewarden -- treewarden
 * mcp`). Its runs live under one lease named after the agent session; when the agent closes our
 * stdin (or dies, and the pipe closes), the lease is released and every run ends with it. Killed
 * by any signal instead, the lease's guardian sees its pipe close and ends them all the same.
 */
import { createRequire } from 'node:module';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { detectAgent } from '../mcp/agent-identity.js';
import { answerBadEnvelopes } from '../mcp/bad-envelopes.js';
import { createMcpServer } from '../mcp/server.js';
import { createSessionRuns } from '../mcp/session-runs.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE = 'treewarden mcp   (speaks MCP on stdin/stdout; register it with your agent)';
/** Largest frame accepted; a bigger one is garbage, answered by closing (the SDK's own bound is 10 MB). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Signals that end the session like a closed stdin does: release the lease, then exit. */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/**
 * How often the server checks that the agent that started it is still its parent. An agent that
 * died while something else still holds our stdin open (a child it left) never closes the pipe.
 */
export const PARENT_CHECK_MS = 1000;

function version(): string {
  const pkg: unknown = createRequire(import.meta.url)('../../package.json');
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string'
    ? pkg.version
    : '0';
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length > 0) throw new UsageError(`mcp takes no arguments, got ${argv.join(' ')}`);
  const runs = createSessionRuns(detectAgent(process.env));
  const server = createMcpServer(runs, version());
  // Frames with an id but a bad envelope are answered (Invalid Request) before the SDK skips them.
  const input = answerBadEnvelopes(process.stdin, (frame) => process.stdout.write(frame), MAX_FRAME_BYTES);
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: MAX_FRAME_BYTES });
  const parent = process.ppid;
  let parentTimer: NodeJS.Timeout | undefined;
  const ended = new Promise<string>((resolve) => {
    // A frame that is not JSON-RPC is reported to onerror and skipped; the session goes on.
    transport.onerror = () => {};
    process.stdin.once('end', () => resolve('the agent closed the MCP server’s stdin'));
    process.stdin.once('close', () => resolve('the agent closed the MCP server’s stdin'));
    // stdout gone (the client vanished mid-call): nothing more can be answered; end the session.
    process.stdout.on('error', () => resolve('the MCP server’s stdout closed'));
    for (const signal of SHUTDOWN_SIGNALS) process.once(signal, () => resolve(`the MCP server received ${signal}`));
    server.server.onclose = () => resolve('the MCP connection closed');
    parentTimer = setInterval(() => {
      if (process.ppid !== parent) resolve(`the agent (pid ${parent}) exited`);
    }, PARENT_CHECK_MS);
    parentTimer.unref();
  });
  await server.connect(transport);
  const why = await ended;
  clearInterval(parentTimer);
  await runs.close(why);
  await server.close().catch(() => {});
  return 0;
}

export const mcpCommand: CliCommand = {
  summary: 'an MCP server (stdio) for agents: background runs under a lease that ends with the session',
  usage: USAGE,
  main,
};
