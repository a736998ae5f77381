/**
 * Input and output shapes of every tool (zod, turned into JSON schema by the SDK). Inputs are
 * checked twice: by these shapes (types, simple bounds), then by the engine (`validateRunSpec`,
 * `assertPort`), whose messages name the bound, so the agent reads how to fix its call.
 */
import { z } from 'zod';

/** Longest command an agent may pass (argv entries). */
export const MAX_COMMAND_ARGS = 4096;
/** Longest readiness pattern: a bound keeps a hostile pattern cheap to reject. */
export const MAX_READY_PATTERN_CHARS = 1000;
/** start_background waits at most this long for readiness by default… */
export const DEFAULT_READY_WAIT_SECONDS = 30;
/** …and never longer than this (MCP clients time tool calls out; the run keeps going either way). */
export const MAX_READY_WAIT_SECONDS = 300;
/** read_output returns at most this many characters per call… */
export const MAX_READ_TAIL_CHARS = 256 * 1024;
/** …and this many by default. */
export const DEFAULT_READ_TAIL_CHARS = 16 * 1024;
/** Output shown with a start that failed or did not become ready, so the agent sees why. */
export const START_OUTPUT_TAIL_CHARS = 4096;

const identity = z.object({ pid: z.number().int(), startTime: z.string() });
const runState = z.enum(['starting', 'running', 'stopping', 'ended']);

export const startBackgroundInput = {
  command: z
    .array(z.string())
    .max(MAX_COMMAND_ARGS)
    .describe(
      'argv: the program and its arguments, e.g. ["npm", "run", "dev"]. No shell: use ["sh", "-c", "…"] for one.',
    ),
  cwd: z.string().optional().describe('Working directory (must exist); default: the MCP server’s own.'),
  timeoutSeconds: z
    .number()
    .optional()
    .describe('The run is ended (whole tree) after this long: 1…5400 s, default 1800.'),
  maxMemory: z
    .union([z.string(), z.number()])
    .optional()
    .describe('Cap on the tree’s resident memory: bytes, or "512M", "2G".'),
  maxProcs: z.number().int().optional().describe('Cap on the tree’s live processes.'),
  readyPattern: z
    .string()
    .max(MAX_READY_PATTERN_CHARS)
    .optional()
    .describe('JavaScript regex; the call returns once the output (stdout or stderr) matches it.'),
  port: z.number().int().optional().describe('The call returns once the run’s tree listens on this TCP/UDP port.'),
  readyTimeoutSeconds: z
    .number()
    .optional()
    .describe(`How long to wait for readiness: 1…${MAX_READY_WAIT_SECONDS} s, default ${DEFAULT_READY_WAIT_SECONDS}.`),
  keepAfterSession: z
    .boolean()
    .optional()
    .describe('Keep the run going after this agent session ends (default: it is ended with the session).'),
};

export const startBackgroundOutput = {
  runId: z.string(),
  pid: z.number().int().nullable(),
  startTime: z.string().nullable(),
  ports: z.array(z.number().int()),
  ready: z.boolean(),
  readyBy: z.enum(['pattern', 'port', 'spawn']).optional(),
  waitedMs: z.number(),
  state: runState,
  classification: z.string().optional(),
  error: z.string().optional(),
  outputTail: z.string().optional(),
};

export const runIdInput = { runId: z.string().describe('The runId start_background returned.') };

const outcome = z.object({
  classification: z.string(),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  survivors: z.array(identity),
  error: z.string().optional(),
});

const runRow = z.object({
  runId: z.string(),
  command: z.array(z.string()),
  cwd: z.string(),
  state: runState,
  pid: z.number().int().nullable(),
  startTime: z.string().nullable(),
  startedAt: z.string(),
  ports: z.array(z.number().int()),
  liveProcesses: z.number().int(),
  cpuSeconds: z.number(),
  memoryBytes: z.number(),
  keepAfterSession: z.boolean(),
  outcome: outcome.optional(),
});

export const listRunsOutput = {
  agent: z.string().nullable(),
  sessionId: z.string().nullable(),
  lease: z.string(),
  runs: z.array(runRow),
};

export const readOutputInput = {
  ...runIdInput,
  tail: z
    .number()
    .int()
    .optional()
    .describe(`Characters to return at most: 1…${MAX_READ_TAIL_CHARS}, default ${DEFAULT_READ_TAIL_CHARS}.`),
  since: z.number().int().optional().describe('An offset (nextOffset of an earlier read): only what came after it.'),
};

export const readOutputOutput = {
  runId: z.string(),
  text: z.string(),
  fromOffset: z.number().int(),
  nextOffset: z.number().int(),
  skippedChars: z.number().int(),
  state: runState,
};

export const stopRunOutput = {
  runId: z.string(),
  result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused', 'already_ended']),
  classification: z.string().optional(),
  killed: z.array(identity),
  survivors: z.array(identity),
  error: z.string().optional(),
};

export const portInput = {
  port: z.number().int().describe('Port number, 1…65535.'),
  udp: z.boolean().optional().describe('A UDP port (default TCP).'),
};

const listener = z.object({
  address: z.string(),
  port: z.number().int(),
  proto: z.string(),
  pid: z.number().int(),
  startTime: z.string(),
  args: z.array(z.string()),
  runId: z.string().nullable(),
});

export const whoListensOutput = {
  port: z.number().int(),
  proto: z.string(),
  listeners: z.array(listener),
  /** Listening sockets on the port held by processes Treewarden cannot inspect (another user's). */
  hiddenHolders: z.number().int().optional(),
};

export const freePortInput = {
  ...portInput,
  confirm: z.boolean().describe('false: preview what would be ended; true: end it (identity-checked).'),
  expect: z
    .array(identity)
    .optional()
    .describe(
      "Required with confirm:true: the preview's `expect`. A holder the preview did not show refuses the whole call.",
    ),
};

export const freePortOutput = {
  port: z.number().int(),
  proto: z.string(),
  result: z.enum(['preview', 'freed', 'nothing_listening', 'refused', 'survivors']),
  listeners: z.array(listener),
  wouldEnd: z.array(z.object({ pid: z.number().int(), startTime: z.string(), args: z.array(z.string()) })),
  refusals: z.array(z.string()),
  /** The holders' identities: pass them back as `expect` with confirm:true. */
  expect: z.array(identity),
  /** What changed since the preview (a holder gone, or one the preview never showed). */
  changes: z.array(z.string()).optional(),
  survivors: z.array(identity),
  stillListening: z.array(z.object({ pid: z.number().int(), startTime: z.string() })),
  error: z.string().optional(),
};
