/**
 * `treewarden export` through the built CLI: bad --listen/--otlp/--interval and a non-loopback
 * address without --allow-remote and a token file are one-line errors with exit 2; a port in use
 * names its holder; with a token every request without it gets 401, with it /metrics answers; an
 * unreachable collector is counted as dropped batches while /metrics keeps answering.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, cliRunsTimeoutMs, runCli, startCli } from '../../../test-support/cli-helpers.js';
import { makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../../../test-support/index.js';

const EXPORT_WAIT_MS = 30_000;
const SLOW_TEST_MS = 90_000;
const TOKEN = 'a-test-token-of-enough-length-0123456789';
/** Failed OTLP batches to see before judging the collector-down case (a 1 s interval makes this fast). */
const FAILED_BATCHES = 3;

function listenOn(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function firstLine(child: ReturnType<typeof startCli>['child']): Promise<string> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return pollUntil(() => (out.includes('\n') ? out.split('\n')[0] : null), {
    deadlineMs: EXPORT_WAIT_MS,
    description: 'the export URL on stdout',
  });
}

describe('treewarden export', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  function home(): string {
    const dir = makeTempDir('tw-export-');
    dirs.push(dir);
    return dir;
  }

  const refused = (tokenFile: string) => [
    ['--listen', 'nowhere'],
    ['--listen', '127.0.0.1:70000'],
    ['--listen', '0.0.0.0:9464'],
    ['--listen', '0.0.0.0:9464', '--allow-remote'],
    ['--listen', '0.0.0.0:9464', '--token-file', tokenFile],
    ['--otlp', 'not a url'],
    ['--otlp', 'ftp://collector:4318'],
    ['--interval', '0'],
  ];

  it('refuses bad values and a remote address without --allow-remote and a token, exit 2, one line', {
    timeout: cliRunsTimeoutMs(refused('').length),
  }, async () => {
    assertBuilt();
    const env = { TREEWARDEN_HOME: home() };
    const tokenFile = join(env.TREEWARDEN_HOME, 'token');
    writeFileSync(tokenFile, TOKEN);
    for (const args of refused(tokenFile)) {
      const result = await runCli(['export', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
  });

  it('says who holds a port in use', async () => {
    const taken = await listenOn();
    servers.push(taken);
    const result = await runCli(['export', '--listen', `127.0.0.1:${portOf(taken)}`], { TREEWARDEN_HOME: home() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`port ${portOf(taken)} on 127.0.0.1 is in use by pid ${process.pid}`);
  });

  it(
    'answers 401 without the bearer token, /metrics with it; a down collector is counted, /metrics keeps answering',
    async () => {
      const dir = home();
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, TOKEN);
      // A port nothing listens on: every OTLP export fails (connection refused).
      const closed = await listenOn();
      const deadPort = portOf(closed);
      await new Promise((resolve) => closed.close(resolve));
      const exporter = startCli(
        [
          'export',
          '--listen',
          '127.0.0.1:0',
          '--token-file',
          tokenFile,
          '--otlp',
          `http://127.0.0.1:${deadPort}`,
          '--interval',
          '1',
        ],
        { TREEWARDEN_HOME: dir },
      );
      tracker.trackChild(exporter.child);
      const url = await firstLine(exporter.child);
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
      const text = await pollUntil(
        async () => {
          const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
          const body = await response.text();
          const dropped = Number(/^treewarden_otlp_dropped_batches_total (\S+)$/m.exec(body)?.[1] ?? '0');
          // The first snapshot can come after the first failed batches on a loaded machine.
          const polled = /^treewarden_leaked_processes\{/m.test(body);
          return response.status === 200 && dropped >= FAILED_BATCHES && polled ? body : null;
        },
        { deadlineMs: EXPORT_WAIT_MS, description: `${FAILED_BATCHES} dropped OTLP batches while /metrics answers` },
      );
      // Present; its value is the machine's (other test files leak runs of their own state dirs).
      expect(text).toMatch(/^treewarden_leaked_processes\{kind="run",agent=""\} \d+$/m);
      // No pid, argv or session label by default.
      expect(text).not.toMatch(/\b(pid|argv|session_id|command)="/);
      exporter.child.kill('SIGTERM');
      expect((await exporter.result).code).toBe(0);
    },
    SLOW_TEST_MS,
  );
});
