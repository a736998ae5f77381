/**
 * The MCP server: one McpServer with Treewarden's tools, each guarded so that a bad call is an MCP
 * tool error with its reason, never a thrown exception.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { freePort, whoListens } from './port-tools.js';
import { listRuns, readOutput, startBackground, stopRun } from './run-tools.js';
import type { SessionRuns } from './session-runs.js';
import { guarded } from './tool-result.js';
import {
  freePortInput,
  freePortOutput,
  listRunsOutput,
  portInput,
  readOutputInput,
  readOutputOutput,
  runIdInput,
  startBackgroundInput,
  startBackgroundOutput,
  stopRunOutput,
  whoListensOutput,
} from './tool-schemas.js';

export const SERVER_NAME = 'treewarden';

/**
 * The SDK's server validates a JSON schema only for the answer to an elicitation (a form it asks
 * the client to fill in); Treewarden never elicits. Its default validator is ajv, built at
 * construction (~10 MB of a server that idles through a whole agent session), and the bundle
 * (rolldown.config.mjs) leaves ajv out; this one says why, should an elicitation ever be added.
 */
export const noElicitationValidator: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'treewarden mcp does not elicit input, so it has no validator for a client’s schema',
  }),
};

export function createMcpServer(runs: SessionRuns, version: string): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version }, { jsonSchemaValidator: noElicitationValidator });
  server.registerTool(
    'start_background',
    {
      title: 'Start background work under supervision',
      description:
        'Start a dev server, watcher or other long-running command under a Treewarden lease: its whole process tree ' +
        'is ended when this agent session ends (unless keepAfterSession), at its timeout, or by stop_run. ' +
        'Waits until readyPattern appears in its output or it listens on port. Use instead of `cmd &`.',
      inputSchema: startBackgroundInput,
      outputSchema: startBackgroundOutput,
    },
    (input) => guarded(() => startBackground(runs, input)),
  );
  server.registerTool(
    'list_runs',
    {
      title: 'List this session’s runs',
      description: 'The runs this session started: state, ports, CPU, memory, and how each ended.',
      outputSchema: listRunsOutput,
      annotations: { readOnlyHint: true },
    },
    () => guarded(() => listRuns(runs)),
  );
  server.registerTool(
    'read_output',
    {
      title: 'Read a run’s output',
      description:
        'The last `tail` characters of a run’s stdout+stderr; pass `since` (a nextOffset) to read only new output.',
      inputSchema: readOutputInput,
      outputSchema: readOutputOutput,
      annotations: { readOnlyHint: true },
    },
    (input) => guarded(() => readOutput(runs, input)),
  );
  server.registerTool(
    'stop_run',
    {
      title: 'Stop a run',
      description: 'End a run’s whole process tree (identity-checked; SIGTERM, then SIGKILL) and report survivors.',
      inputSchema: runIdInput,
      outputSchema: stopRunOutput,
      annotations: { destructiveHint: true },
    },
    (input) => guarded(() => stopRun(runs, input)),
  );
  server.registerTool(
    'who_listens',
    {
      title: 'Who listens on a port',
      description: 'The processes listening on a port, with identity, argv and the Treewarden run they belong to.',
      inputSchema: portInput,
      outputSchema: whoListensOutput,
      annotations: { readOnlyHint: true },
    },
    (input) => guarded(() => whoListens(input)),
  );
  server.registerTool(
    'free_port',
    {
      title: 'Free a port',
      description:
        'End the process trees listening on a port (listeners only, never a connected client). ' +
        'confirm:false previews what would end; confirm:true ends it with the identity-checked tree kill.',
      inputSchema: freePortInput,
      outputSchema: freePortOutput,
      annotations: { destructiveHint: true },
    },
    (input) => guarded(() => freePort(input)),
  );
  return server;
}
