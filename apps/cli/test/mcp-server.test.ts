/**
 * `treewarden mcp` against a real MCP client from the SDK over stdio: a dev server started with a
 * readiness pattern, listed, read, stopped; bad calls answered with tool errors; the agent killed
 * with SIGKILL mid-call (every run it started ends, and the ledger says why); the server itself
 * SIGKILLed (its guardian ends the runs); garbage frames that leave the server answering.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readLedger, resolveStateDir, statePaths } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  pollUntil,
  readReportedPids,
  removeTempDir,
  spawnFixture,
  useProcessTracker,
} from '../../../test-support/index.js';

/** Server, guardian and a node dev server starting on a loaded 2-core box. */
const MCP_TEST_TIMEOUT_MS = 90_000;
/** The session's end: the runs' tree kills (SESSION_END_WAIT_MS) and the lease release, with room for load. */
const RUNS_GONE_WAIT_MS = 60_000;
/** The fake agent starting the server and both runs. */
const AGENT_REPORT_WAIT_MS = 45_000;
/** Garbage frames the fuzz test sends before checking the server still answers. */
const FUZZ_FRAMES = 400;
/** A kept run's own timeout: long enough to see it outlive its session, short enough to wait for. */
const KEPT_RUN_TIMEOUT_S = 15;
const MARK_ENV = 'TREEWARDEN_MCP_TEST_MARK';
const AGENT_FIXTURE = fileURLToPath(new URL('./fixtures/mcp-agent.mjs', import.meta.url));
/** The committed launcher agents are registered with (main.ts then loads only mcp-main.js). */
const CLI_BIN = fileURLToPath(new URL('../bin/treewarden.js', import.meta.url));

interface Structured {
  [key: string]: unknown;
}
interface CallResult {
  readonly isError?: boolean;
  readonly structuredContent?: Structured;
  readonly content: readonly { readonly type: string; readonly text?: string }[];
}

function serverEnv(mark: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, [MARK_ENV]: mark, ...extra };
}

function textOf(result: CallResult): string {
  return result.content.map((part) => part.text ?? '').join('\n');
}

function ledgerRecords() {
  return readLedger(statePaths(resolveStateDir()).ledgerFile).records;
}

describe.skipIf(process.platform !== 'linux')('treewarden mcp', () => {
  const tracker = useProcessTracker();
  const clients: Client[] = [];
  beforeAll(assertBuilt);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });

  async function connect(extraEnv: Record<string, string> = {}) {
    const mark = `mcp-${process.pid}-${randomBytes(4).toString('hex')}`;
    tracker.trackEnvMarker(MARK_ENV, mark);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_MAIN, 'mcp'],
      env: serverEnv(mark, extraEnv),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'treewarden-test', version: '1' });
    await client.connect(transport);
    clients.push(client);
    if (transport.pid !== null) tracker.trackPid(transport.pid);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallResult;
    return { client, transport, call };
  }

  it(
    'starts a dev server until ready, lists it with its port, reads its output, stops its whole tree',
    async () => {
      const { call, client } = await connect({ CLAUDE_CODE_SESSION_ID: 'sess-1234567890', CLAUDECODE: '1' });
      const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(tools).toEqual(['free_port', 'list_runs', 'read_output', 'start_background', 'stop_run', 'who_listens']);

      const started = await call('start_background', {
        command: [process.execPath, fixturePath('dev-server.mjs'), '--delay', '200'],
        readyPattern: 'ready on http://127\\.0\\.0\\.1:\\d+',
      });
      expect(started.isError ?? false).toBe(false);
      const start = started.structuredContent as { runId: string; pid: number; startTime: string; ports: number[] };
      expect(start).toMatchObject({ ready: true, readyBy: 'pattern', state: 'running' });
      // The pattern matched only after the socket was bound, so the port is already listed.
      expect(start.ports).toHaveLength(1);
      const port = start.ports[0] as number;

      const listed = (await call('list_runs', {})).structuredContent as {
        agent: string;
        sessionId: string;
        lease: string;
        runs: { runId: string; ports: number[]; liveProcesses: number; memoryBytes: number; state: string }[];
      };
      expect(listed).toMatchObject({
        agent: 'claude-code',
        sessionId: 'sess-1234567890',
        lease: 'mcp · claude-code · sess-123',
      });
      expect(listed.runs).toHaveLength(1);
      expect(listed.runs[0]).toMatchObject({ runId: start.runId, ports: [port], state: 'running' });
      // The dev server and its setsid watcher.
      const watcherSeen = await pollUntil(
        async () => {
          const again = (await call('list_runs', {})).structuredContent as typeof listed;
          return (again.runs[0]?.liveProcesses ?? 0) >= 2 ? again.runs[0] : null;
        },
        { description: 'the watcher joining the run', deadlineMs: 20_000 },
      );
      expect(watcherSeen.memoryBytes).toBeGreaterThan(0);

      const output = (await call('read_output', { runId: start.runId })).structuredContent as {
        text: string;
        nextOffset: number;
      };
      expect(output.text).toContain('starting dev server');
      expect(output.text).toContain('bad\uFFFD'); // invalid UTF-8 replaced
      expect(output.text).toContain(`ready on http://127.0.0.1:${port}`);
      const since = (await call('read_output', { runId: start.runId, since: output.nextOffset })).structuredContent;
      expect(since).toMatchObject({ text: '', nextOffset: output.nextOffset });
      const tail = (await call('read_output', { runId: start.runId, tail: 5 })).structuredContent as { text: string };
      expect(tail.text).toHaveLength(5);

      const listeners = (await call('who_listens', { port })).structuredContent as {
        listeners: { pid: number; runId: string }[];
      };
      expect(listeners.listeners).toEqual([expect.objectContaining({ pid: start.pid, runId: start.runId })]);

      const stopped = await call('stop_run', { runId: start.runId });
      expect(stopped.isError ?? false).toBe(false);
      const stop = stopped.structuredContent as { result: string; killed: { pid: number }[]; survivors: unknown[] };
      expect(stop).toMatchObject({ result: 'killed', classification: 'cancelled', survivors: [] });
      expect(stop.killed.length).toBeGreaterThanOrEqual(2);
      for (const { pid } of stop.killed) expect(isRunning(pid)).toBe(false);
      const after = (await call('list_runs', {})).structuredContent as typeof listed;
      expect(after.runs[0]).toMatchObject({ state: 'ended', outcome: { classification: 'cancelled' } });
      const again = await call('stop_run', { runId: start.runId });
      expect(again.structuredContent).toMatchObject({ result: 'already_ended' });
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'free_port previews without signalling, then ends only the listener it previewed',
    async () => {
      const { call } = await connect();
      const fixture = spawnFixture(tracker, 'dev-server.mjs');
      const [server] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'dev-server' });
      const { pid, port, child } = server as unknown as { pid: number; port: number; child: number };
      const preview = await call('free_port', { port, confirm: false });
      expect(preview.isError ?? false).toBe(false);
      const plan = preview.structuredContent as {
        result: string;
        wouldEnd: { pid: number }[];
        expect: { pid: number; startTime: string }[];
      };
      expect(plan.result).toBe('preview');
      // The listener and its tree (its setsid watcher is its child).
      expect(plan.wouldEnd.map((member) => member.pid).sort()).toEqual([pid, child].sort());
      expect(isRunning(pid) && isRunning(child)).toBe(true);
      expect(await call('free_port', { port, confirm: true })).toMatchObject({ isError: true });
      expect(isRunning(pid) && isRunning(child)).toBe(true);
      const freed = await call('free_port', { port, confirm: true, expect: plan.expect });
      expect(freed.structuredContent).toMatchObject({ result: 'freed', survivors: [], stillListening: [] });
      expect(isRunning(pid) || isRunning(child)).toBe(false);
      const after = await call('free_port', { port, confirm: false });
      expect(after.structuredContent).toMatchObject({ result: 'nothing_listening' });
      removeTempDir(fixture.dir);
    },
    MCP_TEST_TIMEOUT_MS,
  );

  /** A listener on `port` (0: any), in its own group; resolves once it is bound. */
  async function listenOn(port: number): Promise<{ pid: number; port: number }> {
    const script = `const s = require('node:net').createServer();
s.listen(${port}, '127.0.0.1', () => console.log(s.address().port));
setTimeout(() => process.exit(0), ${MCP_TEST_TIMEOUT_MS});`;
    const child = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = tracker.trackChild(child, { detached: true });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const bound = await pollUntil(() => (out.includes('\n') ? Number(out.trim()) : null), {
      description: 'the listener is bound',
    });
    return { pid, port: bound };
  }

  it(
    'free_port confirm is pinned to the previewed holders: a holder swapped in after the preview is refused',
    async () => {
      const { call } = await connect();
      const first = await listenOn(0);
      const preview = await call('free_port', { port: first.port, confirm: false });
      const plan = preview.structuredContent as { expect: { pid: number; startTime: string }[] };
      expect(plan.expect.map((identity) => identity.pid)).toEqual([first.pid]);
      // The previewed holder goes; another process takes the port before the confirm.
      process.kill(-first.pid, 'SIGKILL');
      await pollUntil(() => !isRunning(first.pid), { description: 'the previewed holder is gone' });
      const second = await listenOn(first.port);
      const confirm = await call('free_port', { port: first.port, confirm: true, expect: plan.expect });
      expect(confirm.isError).toBe(true);
      expect(confirm.structuredContent).toMatchObject({ result: 'refused' });
      expect(textOf(confirm)).toMatch(new RegExp(`pid ${second.pid} .*was not previewed`));
      expect(isRunning(second.pid)).toBe(true);
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'answers every bad call with a tool error that says why, and keeps serving',
    async () => {
      const { call } = await connect();
      const refusals: [Record<string, unknown>, string, RegExp][] = [
        [{ runId: 'run-nope' }, 'read_output', /unknown runId "run-nope"/],
        [{ runId: 'run-nope' }, 'stop_run', /unknown runId/],
        [{ command: [] }, 'start_background', /command is empty/],
        [{ command: [''] }, 'start_background', /command is empty/],
        [{ command: ['true'], timeoutSeconds: 0 }, 'start_background', /below MIN_TIMEOUT_SECONDS/],
        [{ command: ['true'], timeoutSeconds: 99_999 }, 'start_background', /above MAX_TIMEOUT_SECONDS/],
        [{ command: ['true'], maxProcs: 0 }, 'start_background', /max-procs 0/],
        [{ command: ['true'], maxMemory: '12Q' }, 'start_background', /12Q/],
        [{ command: ['true'], cwd: '/nonexistent/dir' }, 'start_background', /does not exist/],
        [{ command: ['true'], port: 70_000 }, 'start_background', /not a port number/],
        [{ command: ['true'], readyPattern: '(' }, 'start_background', /not a valid regular expression/],
        [{ command: ['true'], readyPattern: '(a)\\1' }, 'start_background', /cannot be matched in bounded time/],
        [{ command: ['true'], readyPattern: '(?<=a)b' }, 'start_background', /cannot be matched in bounded time/],
        [{ command: ['true'], readyTimeoutSeconds: 0 }, 'start_background', /MAX_READY_WAIT_SECONDS/],
        [{ command: 'ls' }, 'start_background', /expected array/],
        [{ port: 0 }, 'who_listens', /not a port number/],
        [{ port: 65_536, confirm: false }, 'free_port', /not a port number/],
      ];
      for (const [args, tool, reason] of refusals) {
        const result = await call(tool, args);
        expect({ tool, args, isError: result.isError }).toEqual({ tool, args, isError: true });
        expect(textOf(result)).toMatch(reason);
      }
      const missing = await call('start_background', { command: ['treewarden-no-such-binary'] });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ classification: 'missing_binary', state: 'ended' });
      const read = await call('read_output', { runId: (missing.structuredContent as { runId: string }).runId });
      expect(read.isError ?? false).toBe(false);
      // Still serving: a list after all of that.
      const listed = (await call('list_runs', {})).structuredContent as { runs: unknown[] };
      expect(listed.runs).toHaveLength(1);
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'a catastrophic readyPattern cannot stall the server: it is matched in linear time',
    async () => {
      const { call } = await connect();
      // `^(a+)+$` against 40 a's and a '!' takes ~2^40 steps on a backtracking engine.
      const started = await call('start_background', {
        command: [process.execPath, '-e', "console.log('a'.repeat(40) + '!'); setTimeout(() => {}, 60_000)"],
        readyPattern: '^(a+)+$',
        readyTimeoutSeconds: 2,
      });
      expect(started.isError ?? false).toBe(false);
      expect(started.structuredContent).toMatchObject({ ready: false, state: 'running' });
      const { runId } = started.structuredContent as { runId: string };
      const stopped = await call('stop_run', { runId });
      expect(stopped.isError ?? false).toBe(false);
      expect(stopped.structuredContent).toMatchObject({ survivors: [] });
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'the agent SIGKILLed mid-call: every run it started is gone and the ledger says why',
    async () => {
      const mark = `mcp-agent-${process.pid}-${randomBytes(4).toString('hex')}`;
      tracker.trackEnvMarker(MARK_ENV, mark);
      const agent = spawn(process.execPath, [AGENT_FIXTURE, CLI_MAIN, fixturePath('dev-server.mjs')], {
        env: serverEnv(mark),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      tracker.trackChild(agent);
      const report = await firstLine(agent, AGENT_REPORT_WAIT_MS);
      const { serverPid, runs } = JSON.parse(report) as {
        serverPid: number;
        runs: { runId: string; pid: number; startTime: string }[];
      };
      tracker.trackPid(serverPid);
      expect(runs).toHaveLength(2);
      for (const run of runs) expect(isRunning(run.pid, run.startTime)).toBe(true);

      agent.kill('SIGKILL');
      await pollUntil(() => runs.every((run) => !isRunning(run.pid, run.startTime)), {
        description: 'every run of the killed agent gone',
        deadlineMs: RUNS_GONE_WAIT_MS,
      });
      await pollUntil(() => !isRunning(serverPid), {
        description: 'the MCP server exiting',
        deadlineMs: RUNS_GONE_WAIT_MS,
      });
      const ends = ledgerRecords().filter(
        (record) => record.kind === 'run_end' && runs.some((run) => run.runId === record.runId),
      );
      expect(ends).toHaveLength(2);
      for (const end of ends)
        expect(end).toMatchObject({
          classification: 'cancelled',
          error: expect.stringMatching(/^agent session ended: /),
        });
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'the server SIGKILLed: its guardian ends the runs and records that the holder died',
    async () => {
      const { call, transport } = await connect();
      const started = await call('start_background', {
        command: [process.execPath, fixturePath('dev-server.mjs')],
        port: 0,
      });
      // Port 0 is refused (not a port); start it properly by its pattern instead.
      expect(started.isError).toBe(true);
      const run = (
        await call('start_background', {
          command: [process.execPath, fixturePath('dev-server.mjs')],
          readyPattern: 'ready on',
        })
      ).structuredContent as { runId: string; pid: number; startTime: string };
      expect(isRunning(run.pid, run.startTime)).toBe(true);
      process.kill(transport.pid as number, 'SIGKILL');
      await pollUntil(() => !isRunning(run.pid, run.startTime), {
        description: 'the run ended by the guardian',
        deadlineMs: RUNS_GONE_WAIT_MS,
      });
      const leaseOfRun = ledgerRecords().find((record) => record.kind === 'run_start' && record.runId === run.runId);
      const leaseId = leaseOfRun?.kind === 'run_start' ? leaseOfRun.leaseId : undefined;
      const leaseEnd = await pollUntil(
        () => ledgerRecords().find((record) => record.kind === 'lease_end' && record.leaseId === leaseId),
        { description: 'the lease_end record', deadlineMs: RUNS_GONE_WAIT_MS },
      );
      expect(leaseEnd).toMatchObject({ reason: 'holder_died', runsEnded: [run.runId] });
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'keepAfterSession: the session ends, the kept run goes on under its guardian until its own timeout',
    async () => {
      const { call, client, transport } = await connect({ CLAUDE_CODE_SESSION_ID: 'sess-kept-test' });
      const serverPid = transport.pid as number;
      const start = async (keepAfterSession: boolean) =>
        (
          await call('start_background', {
            command: [process.execPath, fixturePath('dev-server.mjs')],
            readyPattern: 'ready on',
            timeoutSeconds: KEPT_RUN_TIMEOUT_S,
            keepAfterSession,
          })
        ).structuredContent as { runId: string; pid: number; startTime: string };
      const kept = await start(true);
      const ended = await start(false);
      // The kept run carries no agent marker (it outlives the session on purpose); the other does.
      expect(environOf(kept.pid)).not.toContain('CLAUDE_CODE_SESSION_ID=sess-kept-test');
      expect(environOf(ended.pid)).toContain('CLAUDE_CODE_SESSION_ID=sess-kept-test');
      await client.close();
      await pollUntil(() => !isRunning(ended.pid, ended.startTime) && !isRunning(serverPid), {
        description: "the session's run ended and the server gone",
        deadlineMs: RUNS_GONE_WAIT_MS,
      });
      expect(isRunning(kept.pid, kept.startTime)).toBe(true);
      const keptStart = ledgerRecords().find((record) => record.kind === 'run_start' && record.runId === kept.runId);
      expect(keptStart).toMatchObject({ keepAfterLease: true });
      const leaseId = keptStart?.kind === 'run_start' ? keptStart.leaseId : undefined;
      // The session's own run was ended by the server before its release; the kept one is listed as kept.
      const leaseEnd = await pollUntil(
        () => ledgerRecords().find((record) => record.kind === 'lease_end' && record.leaseId === leaseId),
        { description: 'the lease_end record', deadlineMs: RUNS_GONE_WAIT_MS },
      );
      expect(leaseEnd).toMatchObject({ runsKept: [kept.runId] });
      // The guardian's sweep is over (lease_end follows it) and spared the kept tree.
      expect(isRunning(kept.pid, kept.startTime)).toBe(true);

      // Still bounded: its own timeout ends it, and its guardian records that.
      const keptEnd = await pollUntil(
        () => ledgerRecords().find((record) => record.kind === 'run_end' && record.runId === kept.runId),
        { description: 'the kept run ending at its timeout', deadlineMs: RUNS_GONE_WAIT_MS },
      );
      expect(keptEnd).toMatchObject({ classification: 'timeout' });
      expect(isRunning(kept.pid, kept.startTime)).toBe(false);
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'survives garbage frames (seeded) and still answers',
    async () => {
      const mark = `mcp-fuzz-${process.pid}-${randomBytes(4).toString('hex')}`;
      tracker.trackEnvMarker(MARK_ENV, mark);
      const server = spawn(process.execPath, [CLI_BIN, 'mcp'], {
        env: serverEnv(mark),
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      tracker.trackChild(server);
      const replies = collectReplies(server);
      const random = seeded(0x5eed);
      for (let index = 0; index < FUZZ_FRAMES; index += 1) server.stdin.write(`${garbageFrame(random, index)}\n`);
      server.stdin.write(`${JSON.stringify(initialize(1_000_001))}\n`);
      server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      server.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1_000_002, method: 'tools/call', params: { name: 'list_runs', arguments: {} } })}\n`,
      );
      const answer = await pollUntil(() => replies.find((reply) => reply.id === 1_000_002), {
        description: 'the answer to list_runs after the garbage',
        deadlineMs: 30_000,
      });
      expect(answer).toMatchObject({ result: { structuredContent: { runs: [] } } });
      expect(server.exitCode).toBe(null);
      server.stdin.end();
      await pollUntil(() => server.exitCode !== null, {
        description: 'the server exiting on stdin EOF',
        deadlineMs: 30_000,
      });
      expect(server.exitCode).toBe(0);
    },
    MCP_TEST_TIMEOUT_MS,
  );

  it(
    'answers a frame with an id but a bad envelope with an Invalid Request error carrying that id',
    async () => {
      const mark = `mcp-envelope-${process.pid}-${randomBytes(4).toString('hex')}`;
      tracker.trackEnvMarker(MARK_ENV, mark);
      const server = spawn(process.execPath, [CLI_BIN, 'mcp'], {
        env: serverEnv(mark),
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      tracker.trackChild(server);
      const replies = collectReplies(server);
      const bad: Record<string, unknown>[] = [
        { id: 7, method: 'ping' },
        { jsonrpc: '1.0', id: 'eight', method: 'ping' },
        { jsonrpc: '2.0', id: 9, method: 42 },
        { jsonrpc: '2.0', id: 10 },
      ];
      for (const frame of bad) server.stdin.write(`${JSON.stringify(frame)}\n`);
      // A frame split across writes is still read whole.
      server.stdin.write('{"jsonrpc":"2.0",');
      server.stdin.write('"id":11,"method":7}\n');
      // Still serving: a good request after the bad ones.
      server.stdin.write(`${JSON.stringify(initialize(12))}\n`);
      const ids = [7, 'eight', 9, 10, 11];
      await pollUntil(
        () => ids.every((id) => replies.some((reply) => reply.id === id)) && replies.some((r) => r.id === 12),
        {
          description: 'an answer to every bad frame and to initialize',
          deadlineMs: 30_000,
        },
      );
      for (const id of ids)
        expect(replies.find((reply) => reply.id === id)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(replies.find((reply) => reply.id === 12)).toMatchObject({
        result: { serverInfo: { name: 'treewarden' } },
      });
      server.stdin.end();
      await pollUntil(() => server.exitCode !== null, {
        description: 'the server exiting on stdin EOF',
        deadlineMs: 30_000,
      });
    },
    MCP_TEST_TIMEOUT_MS,
  );
});

function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
}

function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no report within ${timeoutMs} ms`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, newline));
      }
    });
  });
}

function collectReplies(child: ChildProcess): { id?: unknown }[] {
  const replies: { id?: unknown }[] = [];
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      replies.push(JSON.parse(pending.slice(0, newline)) as { id?: unknown });
      pending = pending.slice(newline + 1);
    }
  });
  return replies;
}

function initialize(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  };
}

/** mulberry32: a seeded PRNG, so a failing frame sequence can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function garbageFrame(random: () => number, index: number): string {
  const pick = Math.floor(random() * 8);
  const bytes = () => Buffer.from(Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256)));
  switch (pick) {
    case 0:
      return bytes().toString('latin1').replaceAll('\n', ' ');
    case 1:
      return '{"jsonrpc":"2.0","id":';
    case 2:
      return JSON.stringify({
        jsonrpc: '2.0',
        id: index,
        method: 'tools/call',
        params: { name: 'stop_run', arguments: { runId: 7 } },
      });
    case 3:
      return JSON.stringify({ jsonrpc: '2.0', id: index, method: 'tools/call', params: { name: 'no_such_tool' } });
    case 4:
      return JSON.stringify({ jsonrpc: '2.0', id: index, method: `rm -rf ${index}`, params: [1, 2, 3] });
    case 5:
      return JSON.stringify([1, 'two', { three: 3 }, null]);
    case 6:
      return JSON.stringify({ jsonrpc: '1.0', result: 'x'.repeat(Math.floor(random() * 10_000)) });
    default:
      return JSON.stringify({ jsonrpc: '2.0', id: { nested: index }, method: 'tools/list' });
  }
}
