/**
 * The OTLP side while the collector is down: 60 s of refused connections (a loopback port nothing
 * listens on) under a flood of events far beyond the log queue. The queue is bounded and failed
 * batches are counted, so the heap after a full GC stays flat from the first seconds to the end;
 * an unbounded buffer would hold every event (hundreds of MB here).
 */
import { createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Snapshot } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../test-support/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import type { ExportEvent } from '../src/export/events.js';
import { type OtlpSide, startOtlp } from '../src/export/otlp.js';
import { createCounters, seriesOf } from '../src/export/series.js';
import { createEngineHost } from '../src/host.js';

const FAILING_MS = 60_000;
/** Heap after warm-up: the queue is full and the SDK's retry machinery is running. */
const WARM_UP_MS = 10_000;
const EVENTS_PER_SECOND = 2_000;
const FLOOD_STEP_MS = 50;
/** Growth allowed between warm-up and the end (GC noise, the JIT); the flood alone is ~100k events. */
const MAX_GROWTH_BYTES = 16 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function refusedPort(): Promise<number> {
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

async function realSnapshot(): Promise<Snapshot> {
  const stateDir = makeTempDir('tw-collector-down-');
  const host = createEngineHost({ port: createEnginePort({ stateDir }) });
  let latest: Snapshot | null = null;
  const unsubscribe = host.onEvent((event) => {
    if (event.type === 'snapshot') latest = event.snapshot;
  });
  try {
    await host.pollNow();
    if (latest === null) throw new Error('no snapshot from the host');
    return latest;
  } finally {
    unsubscribe();
    await host.close();
    removeTempDir(stateDir);
  }
}

function floodEvent(index: number): ExportEvent {
  return {
    name: index % 2 === 0 ? 'leak-found' : 'leak-cleaned',
    sessionId: `0f6c2b1e-0000-4000-8000-${String(index).padStart(12, '0')}`,
    attributes: {
      'treewarden.leak.kind': 'agent',
      'treewarden.agent': 'claude-code',
      'process.pid': 100_000 + (index % 100_000),
      'process.creation.time': String(1_000_000 + index),
      'treewarden.why': `member of a session whose root is gone ${'x'.repeat(200)} ${index}`,
    },
  };
}

describe('export with the collector down', () => {
  let otlp: OtlpSide | null = null;
  afterEach(async () => {
    await otlp?.shutdown();
    otlp = null;
  });

  it(
    'keeps memory flat over 60 s of refused exports under an event flood, and counts the dropped batches',
    async () => {
      const snapshot = await realSnapshot();
      const counters = createCounters();
      otlp = startOtlp({
        url: new URL(`http://127.0.0.1:${await refusedPort()}`),
        intervalMs: 1000,
        sessionLabels: true,
        series: () => seriesOf(snapshot, counters, { sessionLabels: true, scrapeSeconds: 0 }),
        counters,
      });
      const started = Date.now();
      let sent = 0;
      let warm: number | null = null;
      const side = otlp;
      while (Date.now() - started < FAILING_MS) {
        const due = Math.floor(((Date.now() - started) / 1000) * EVENTS_PER_SECOND);
        for (; sent < due; sent += 1) side.emit(floodEvent(sent));
        if (warm === null && Date.now() - started >= WARM_UP_MS) warm = heapAfterGc();
        await new Promise((resolve) => setTimeout(resolve, FLOOD_STEP_MS));
      }
      const end = heapAfterGc();
      expect(warm).not.toBeNull();
      expect(sent).toBeGreaterThan((EVENTS_PER_SECOND * FAILING_MS) / 1000 / 2);
      expect(end - (warm ?? 0), `heap grew from ${warm} to ${end} bytes`).toBeLessThan(MAX_GROWTH_BYTES);
      // Metric and log batches failed for good and were counted, not kept.
      expect(counters.droppedBatches).toBeGreaterThanOrEqual(10);
    },
    FAILING_MS + 60_000,
  );
});
