/**
 * `treewarden export`'s /metrics scraped by a real Prometheus (Debian's package, started here on
 * loopback with a temp TSDB and a 1 s scrape interval): a leaked run (holder and guardian
 * SIGKILLed) shows as treewarden_leaked_processes ≥ 1, a live fake agent with duplicate MCP sets
 * as a live session and a duplicate-servers alert, and each goes back to 0 after clean-up. No
 * pid/argv/session label by default.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPileAgent } from '../../../test-support/fake-piles.js';
import { makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../../../test-support/index.js';
import { startHolder } from '../../../test-support/lease-helpers.js';
import { createEnginePort } from '../src/engine/binding.js';
import { type Exporter, startExporter } from '../src/export/export-main.js';
import { createEngineHost, type EngineHost } from '../src/host.js';
import { expectOk, SLOW_TEST_MS } from './helpers.js';

const PROMETHEUS = '/usr/bin/prometheus';
const IN_CI = process.env.CI === 'true';
const SKIP_REASON = existsSync(PROMETHEUS) || IN_CI ? null : `${PROMETHEUS} is absent (apt-get install -y prometheus)`;
/** Prometheus takes a few seconds to open its TSDB and scrape; generous under load. */
const PROMETHEUS_WAIT_MS = 60_000;
const POLL_INTERVAL_MS = 250;

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * The host as an exporter sees it, with the run leaks narrowed to one run: the machine-wide scan
 * also reports other state dirs' leaked runs (`unregistered`), which concurrent test files make.
 */
function withRunLeaksOf(host: EngineHost, runId: string): EngineHost {
  return {
    handle: (command, clientId) => host.handle(command, clientId),
    onEvent: (listener) =>
      host.onEvent((event) =>
        listener(
          event.type === 'snapshot'
            ? {
                ...event,
                snapshot: {
                  ...event.snapshot,
                  orphans: event.snapshot.orphans.filter((orphan) => orphan.kind === 'agent' || orphan.runId === runId),
                },
              }
            : event,
        ),
      ),
    dropClient: (clientId) => host.dropClient(clientId),
    pollNow: () => host.pollNow(),
    reader: host.reader,
    close: () => host.close(),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface VectorSample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

async function query(base: string, expr: string): Promise<VectorSample[]> {
  try {
    const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
    if (!response.ok) return [];
    const body = (await response.json()) as { data?: { result?: VectorSample[] } };
    return body.data?.result ?? [];
  } catch {
    return []; // not up yet
  }
}

async function sampleValue(base: string, expr: string): Promise<number | null> {
  const [sample] = await query(base, expr);
  return sample === undefined ? null : Number(sample.value[1]);
}

function waitForValue(base: string, expr: string, accept: (value: number) => boolean, description: string) {
  return pollUntil(
    async () => {
      const value = await sampleValue(base, expr);
      // Wrapped: pollUntil treats a bare 0 as "not yet".
      return value !== null && accept(value) ? { value } : null;
    },
    { deadlineMs: PROMETHEUS_WAIT_MS, description },
  );
}

describe.skipIf(SKIP_REASON !== null)(
  `export scraped by a real Prometheus${SKIP_REASON === null ? '' : ` (skipped: ${SKIP_REASON})`}`,
  () => {
    const tracker = useProcessTracker();
    let host: EngineHost | null = null;
    let exporter: Exporter | null = null;
    let labelled: Exporter | null = null;
    let prometheus: ChildProcess | null = null;
    const dirs: string[] = [];
    afterEach(async () => {
      if (prometheus?.pid !== undefined) process.kill(prometheus.pid, 'SIGKILL');
      prometheus = null;
      await exporter?.close();
      exporter = null;
      await labelled?.close();
      labelled = null;
      await host?.close();
      host = null;
      for (const dir of dirs.splice(0)) removeTempDir(dir);
    });

    it(
      'sees a leaked run, a live session with duplicate servers and its alert, then 0 after clean-up',
      async () => {
        if (IN_CI) expect(existsSync(PROMETHEUS), `${PROMETHEUS} must be installed in CI`).toBe(true);
        const held = await startHolder(tracker, 'run-forever.mjs', ['worker'], 1);
        dirs.push(held.home);
        host = createEngineHost({ port: createEnginePort({ stateDir: held.home }), pollIntervalMs: POLL_INTERVAL_MS });
        exporter = await startExporter({
          host,
          listen: { host: '127.0.0.1', port: 0 },
          token: null,
          otlp: null,
          intervalSeconds: 1,
          sessionLabels: false,
        });
        // Other test files run fake agents and leak runs too, and the exporter sees the whole machine:
        // a second exporter on the same host, with session labels and this run's leaks only, lets
        // every count below be only ours.
        labelled = await startExporter({
          host: withRunLeaksOf(host, held.runId),
          listen: { host: '127.0.0.1', port: 0 },
          token: null,
          otlp: null,
          intervalSeconds: 1,
          sessionLabels: true,
        });
        const dir = makeTempDir('tw-prometheus-');
        dirs.push(dir);
        const config = join(dir, 'prometheus.yml');
        writeFileSync(
          config,
          [
            'global: { scrape_interval: 1s, evaluation_interval: 1s }',
            'scrape_configs:',
            '  - job_name: treewarden',
            `    static_configs: [{ targets: ['127.0.0.1:${exporter.server.port}'] }]`,
            '  - job_name: labelled',
            `    static_configs: [{ targets: ['127.0.0.1:${labelled.server.port}'] }]`,
            '',
          ].join('\n'),
        );
        const webPort = await freePort();
        prometheus = spawn(
          PROMETHEUS,
          [
            `--config.file=${config}`,
            `--storage.tsdb.path=${join(dir, 'tsdb')}`,
            `--web.listen-address=127.0.0.1:${webPort}`,
            '--query.lookback-delta=2s',
          ],
          { stdio: 'ignore' },
        );
        tracker.trackChild(prometheus);
        const base = `http://127.0.0.1:${webPort}`;
        await waitForValue(base, 'up{job="treewarden"}', (value) => value === 1, 'Prometheus scraping the exporter');
        await waitForValue(base, 'up{job="labelled"}', (value) => value === 1, 'Prometheus scraping the labelled one');

        // Guardian first, so it cannot see the holder die and end the run itself.
        process.kill(held.guardianPid, 'SIGKILL');
        process.kill(held.holderPid, 'SIGKILL');
        await waitForValue(
          base,
          'sum(treewarden_leaked_processes{job="labelled",kind="run"})',
          (value) => value >= 1,
          'the leaked run',
        );

        const agent = await startPileAgent(tracker, { mcpSets: 3 });
        // Its session_id is the agent's own (CLAUDE_CODE_SESSION_ID), what Claude Code's telemetry carries.
        expect(agent.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        const ours = `job="labelled",session_id="${agent.sessionId}"`;
        await waitForValue(
          base,
          `sum(treewarden_agent_sessions{${ours},state="live"})`,
          (value) => value >= 1,
          'a live session',
        );
        await waitForValue(
          base,
          `sum(treewarden_session_alerts{${ours},kind="duplicate-servers"})`,
          (value) => value >= 1,
          'the duplicate-servers alert',
        );
        // No pid, argv or session label by default.
        const labels = new Set(
          (await query(base, '{job="treewarden"}')).flatMap((sample) => Object.keys(sample.metric)),
        );
        for (const forbidden of ['pid', 'argv', 'session_id', 'command']) expect(labels.has(forbidden)).toBe(false);

        expectOk(await host.handle({ type: 'cleanOrphans', runId: held.runId }));
        await waitForValue(
          base,
          'sum(treewarden_leaked_processes{job="labelled",kind="run"})',
          (value) => value === 0,
          'no leaked run',
        );
        // The agent and its whole pile, by recorded pid (Prometheus, tracked too, must keep running).
        for (const pid of [agent.rootPid, ...agent.reports.map((report) => report.pid)]) killQuietly(pid);
        await waitForValue(
          base,
          `sum(treewarden_agent_sessions{${ours},state="live"}) or vector(0)`,
          (value) => value === 0,
          'no live session after the agent is ended',
        );
        await waitForValue(
          base,
          `sum(treewarden_session_alerts{${ours},kind="duplicate-servers"}) or vector(0)`,
          (value) => value === 0,
          'no alert after the agent is ended',
        );
      },
      SLOW_TEST_MS,
    );
  },
);
