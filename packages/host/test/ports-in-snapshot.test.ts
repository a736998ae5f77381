/**
 * Ports in the host's snapshots: a real server started as a run (a TCP + UDP listener with a
 * setsid child that listens too) shows its sockets on its own process nodes within a deadline,
 * the sockets are the ones a client can connect to, and they are gone once the tree is killed.
 * The full map is read only while a system view asks for the Ports column.
 */
import net from 'node:net';
import type { HostEvent, KillReport, ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { fixturePath, pollUntil, useProcessTracker } from '../../../test-support/index.js';
import {
  EVENT_WAIT_MS,
  expectOk,
  findRun,
  latestSnapshot,
  SLOW_TEST_MS,
  startTrackedRun,
  useTestHost,
  waitForRun,
} from './helpers.js';

function tcpPortsOf(node: ProcessNode | undefined): number[] {
  return (node?.listening ?? []).filter((socket) => socket.proto === 'tcp').map((socket) => socket.port);
}

/** Resolves true when a TCP client can connect to 127.0.0.1:port (the listener is real). */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function snapshotsAfter(events: readonly HostEvent[], index: number) {
  return events.slice(index).flatMap((event) => (event.type === 'snapshot' ? [event.snapshot] : []));
}

describe('ports in the snapshot', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it(
    "shows a run's listening sockets on its processes and drops them after the kill",
    async () => {
      const { host, events } = startHost();
      const started = await startTrackedRun(host, tracker, {
        command: process.execPath,
        args: [fixturePath('port-server.mjs')],
        timeoutSeconds: 120,
      });
      // The server listens on TCP and UDP; its setsid child on its own TCP port.
      const run = await waitForRun(
        events,
        started.runId,
        (view) => {
          const root = view.processes.find((node) => node.pid === view.root?.pid);
          const child = view.processes.find((node) => node.pid !== view.root?.pid);
          return tcpPortsOf(root).length > 0 && tcpPortsOf(child).length > 0;
        },
        'the server and its child listening',
      );
      const root = run.processes.find((node) => node.pid === run.root?.pid);
      const child = run.processes.find((node) => node.pid !== run.root?.pid);
      expect(root?.listening?.map((socket) => socket.proto).sort()).toEqual(['tcp', 'udp']);
      expect(root?.listening?.every((socket) => socket.address === '127.0.0.1')).toBe(true);
      const ports = [...tcpPortsOf(root), ...tcpPortsOf(child)];
      for (const port of ports) expect(await canConnect(port)).toBe(true);

      const killedAt = events.length;
      const report = expectOk<KillReport>(
        await host.handle({
          type: 'killTree',
          target: run.root as { pid: number; startTime: string },
          graceSeconds: 1,
        }),
      );
      expect(report.result).toBe('killed');
      await pollUntil(() => findRun(latestSnapshot(events), started.runId)?.processes.length === 0, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'the killed tree gone from the snapshot',
      });
      // No snapshot after the kill may still show a listener that is gone from the kernel.
      const final = findRun(latestSnapshot(events), started.runId);
      expect(final?.processes.flatMap((node) => node.listening ?? [])).toEqual([]);
      for (const port of ports) expect(await canConnect(port)).toBe(false);
      expect(snapshotsAfter(events, killedAt).length).toBeGreaterThan(0);
    },
    SLOW_TEST_MS,
  );

  it('reads the full port map only while a system view shows the Ports column', async () => {
    const { host } = startHost(60_000);
    await host.pollNow();
    expectOk(await host.handle({ type: 'watchSystem', enabled: true }));
    await host.pollNow();
    const watching = host.reader.counts().ports;
    expectOk(await host.handle({ type: 'watchSystem', enabled: true, ports: true }));
    await host.pollNow();
    // Widening to the full map reads it (at once, not after the interval: port-watch.test.ts
    // proves that on a fake clock; here a loaded machine's slow polls may add an interval's read).
    const widened = host.reader.counts().ports;
    expect(widened).toBeGreaterThan(watching);
    // Column hidden again: with no run shown there is nothing to read at all, however slow the polls.
    expectOk(await host.handle({ type: 'watchSystem', enabled: true, ports: false }));
    await host.pollNow();
    await host.pollNow();
    expect(host.reader.counts().ports).toBe(widened);
    expectOk(await host.handle({ type: 'watchSystem', enabled: false }));
  });
});
