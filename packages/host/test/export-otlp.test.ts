/**
 * The exporter's OTLP/HTTP protobuf side into an in-test receiver that decodes every request with
 * the official OTLP definitions (protobufjs code generated from opentelemetry-proto, shipped in
 * @opentelemetry/otlp-transformer 0.52.1, installed as `otlp-proto-decoders`): the metric names,
 * the resource (`service.name`, `host.name`), and a log record per event carrying `session.id`.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startPileAgent } from '../../../test-support/fake-piles.js';
import { pollUntil, useProcessTracker } from '../../../test-support/index.js';
import { type Exporter, startExporter } from '../src/export/export-main.js';
import { EVENT_WAIT_MS, SLOW_TEST_MS, useTestHost } from './helpers.js';

interface KeyValue {
  readonly key: string;
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string };
}
interface Decoded {
  readonly resourceMetrics?: readonly {
    readonly resource: { readonly attributes: readonly KeyValue[] };
    readonly scopeMetrics: readonly { readonly metrics: readonly { readonly name: string }[] }[];
  }[];
  readonly resourceLogs?: readonly {
    readonly resource: { readonly attributes: readonly KeyValue[] };
    readonly scopeLogs: readonly {
      readonly logRecords: readonly { readonly eventName?: string; readonly attributes: readonly KeyValue[] }[];
    }[];
  }[];
}
interface MessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: StringConstructor; defaults: boolean }): Decoded;
}
interface OtlpRoot {
  readonly opentelemetry: {
    readonly proto: {
      readonly collector: {
        readonly metrics: { readonly v1: { readonly ExportMetricsServiceRequest: MessageType } };
        readonly logs: { readonly v1: { readonly ExportLogsServiceRequest: MessageType } };
      };
    };
  };
}

const root = createRequire(import.meta.url)('otlp-proto-decoders/build/src/generated/root.js') as OtlpRoot;
const { collector } = root.opentelemetry.proto;

function decode(type: MessageType, body: Buffer): Decoded {
  return type.toObject(type.decode(body), { longs: String, defaults: true });
}

function attribute(attributes: readonly KeyValue[], key: string): string | undefined {
  const found = attributes.find((candidate) => candidate.key === key)?.value;
  return found?.stringValue ?? (found?.intValue === undefined ? undefined : String(found.intValue));
}

describe('export over OTLP/HTTP protobuf', () => {
  const tracker = useProcessTracker();
  const makeHost = useTestHost();
  let receiver: Server | null = null;
  let exporter: Exporter | null = null;
  afterEach(async () => {
    await exporter?.close();
    exporter = null;
    await new Promise((resolve) => (receiver === null ? resolve(null) : receiver.close(resolve)));
    receiver = null;
  });

  it(
    'sends the series with the resource, and a log record per event with session.id',
    async () => {
      const metrics: Decoded[] = [];
      const logs: Decoded[] = [];
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks);
          if (request.url === '/v1/metrics')
            metrics.push(decode(collector.metrics.v1.ExportMetricsServiceRequest, body));
          if (request.url === '/v1/logs') logs.push(decode(collector.logs.v1.ExportLogsServiceRequest, body));
          response.writeHead(200, { 'content-type': 'application/x-protobuf' });
          response.end();
        });
      });
      await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
      const address = receiver.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const { host } = makeHost(250);
      exporter = await startExporter({
        host,
        listen: { host: '127.0.0.1', port: 0 },
        token: null,
        otlp: new URL(`http://127.0.0.1:${port}`),
        intervalSeconds: 1,
        sessionLabels: true,
      });
      const agent = await startPileAgent(tracker, { mcpSets: 3 });
      const records = () =>
        logs.flatMap((request) =>
          (request.resourceLogs ?? []).flatMap((resource) => resource.scopeLogs.flatMap((scope) => scope.logRecords)),
        );
      // Other test files run agents too, and the exporter sees the whole machine: only this agent's
      // session counts. Its session.id is the agent's own (CLAUDE_CODE_SESSION_ID, what Claude Code's
      // telemetry carries), not Treewarden's `claude-code-PID-START` key.
      expect(agent.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const ours = (record: { readonly attributes: readonly KeyValue[] }) =>
        attribute(record.attributes, 'session.id') === agent.sessionId;
      const alertFound = await pollUntil(
        () => records().find((record) => attribute(record.attributes, 'event.name') === 'alert-found' && ours(record)),
        { deadlineMs: EVENT_WAIT_MS, description: 'an alert-found log record' },
      );
      const sessionId = attribute(alertFound.attributes, 'session.id');
      expect(sessionId).toBe(agent.sessionId);
      expect(attribute(alertFound.attributes, 'treewarden.alert.kind')).toBe('duplicate-servers');
      // The root gone, its members leak: leak-found per process, and the alert clears.
      process.kill(agent.rootPid, 'SIGKILL');
      await pollUntil(
        () => {
          const names = records()
            .filter(ours)
            .map((record) => attribute(record.attributes, 'event.name'));
          return names.includes('leak-found') && names.includes('alert-cleared');
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'leak-found and alert-cleared log records' },
      );
      const leak = records().find(
        (record) => attribute(record.attributes, 'event.name') === 'leak-found' && ours(record),
      );
      expect(leak === undefined ? undefined : attribute(leak.attributes, 'session.id')).toBe(sessionId);
      expect(leak === undefined ? undefined : attribute(leak.attributes, 'process.pid')).toMatch(/^\d+$/);

      const names = await pollUntil(
        () => {
          const seen = new Set(
            metrics.flatMap((request) =>
              (request.resourceMetrics ?? []).flatMap((resource) =>
                resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)),
              ),
            ),
          );
          return seen.has('treewarden_agent_sessions') && seen.has('treewarden_session_alerts') ? seen : null;
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'the session series over OTLP' },
      );
      for (const name of [
        'treewarden_leaked_processes',
        'treewarden_leases_open',
        'treewarden_scrape_duration_seconds',
      ])
        expect(names.has(name), name).toBe(true);
      for (const request of [...metrics, ...logs]) {
        const resources = [...(request.resourceMetrics ?? []), ...(request.resourceLogs ?? [])];
        for (const resource of resources) {
          expect(attribute(resource.resource.attributes, 'service.name')).toBe('treewarden');
          expect(attribute(resource.resource.attributes, 'host.name')).toBe(hostname());
        }
      }
    },
    SLOW_TEST_MS,
  );
});
