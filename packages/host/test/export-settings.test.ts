/**
 * The exporter switched on from the host's settings (what the app and `serve` do): the command is
 * validated like every host command (loopback listen only, a plain http(s) OTLP URL), saved in the
 * state dir, and applied in the host from its own observer; a host started later on the same state
 * dir serves again from the saved file; a damaged file is ignored with the reason; a port in use
 * says who holds it.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings, type ExportStatus } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir } from '../../../test-support/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import { EXPORT_SETTINGS_FILE } from '../src/export/export-control.js';
import { createEngineHost, type EngineHost } from '../src/host.js';
import { EVENT_WAIT_MS, expectOk, SLOW_TEST_MS } from './helpers.js';

function listenOn(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function freePort(): Promise<number> {
  const server = await listenOn();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the exporter from the host settings', () => {
  const hosts: EngineHost[] = [];
  const dirs: string[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });
  const hostOn = (stateDir: string): EngineHost => {
    const host = createEngineHost({
      port: createEnginePort({ stateDir }),
      pollIntervalMs: 250,
      exportFromSettings: true,
    });
    hosts.push(host);
    return host;
  };
  const stateDir = (): string => {
    const dir = makeTempDir('tw-export-settings-');
    dirs.push(dir);
    return dir;
  };
  const set = async (host: EngineHost, settings: ExportSettings) =>
    host.handle({ type: 'setExportSettings', settings });

  it(
    'serves /metrics from the host once enabled, saves the settings, and a later host serves them again',
    async () => {
      const dir = stateDir();
      const host = hostOn(dir);
      const off = expectOk<ExportStatus>(await host.handle({ type: 'getExportSettings' }));
      expect(off).toEqual({ settings: DEFAULT_EXPORT_SETTINGS, url: null, error: null });
      const port = await freePort();
      const wanted: ExportSettings = { ...DEFAULT_EXPORT_SETTINGS, enabled: true, listenPort: port };
      const on = expectOk<ExportStatus>(await set(host, wanted));
      expect(on).toEqual({ settings: wanted, url: `http://127.0.0.1:${port}/metrics`, error: null });
      const text = await pollUntil(
        async () => {
          const body = await (await fetch(on.url as string)).text();
          return /^treewarden_leases_open \d+$/m.test(body) ? body : null;
        },
        { deadlineMs: EVENT_WAIT_MS, description: "the host's snapshot on /metrics" },
      );
      expect(text).toContain('# TYPE treewarden_leaked_processes gauge');
      const file = join(dir, EXPORT_SETTINGS_FILE);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(wanted);
      expect(statSync(file).mode & 0o077).toBe(0);

      // Off: the port is free again.
      expect(expectOk<ExportStatus>(await set(host, { ...wanted, enabled: false })).url).toBeNull();
      await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
      await set(host, wanted);
      await host.close();
      await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();

      const later = hostOn(dir);
      const restored = await pollUntil(
        async () => {
          const status = expectOk<ExportStatus>(await later.handle({ type: 'getExportSettings' }));
          return status.url === null ? null : status;
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'the saved settings served by a new host' },
      );
      expect(restored.settings).toEqual(wanted);
      expect((await fetch(restored.url as string)).status).toBe(200);
    },
    SLOW_TEST_MS,
  );

  it('refuses a remote listen address, a privileged port and a non-http OTLP URL, and changes nothing', async () => {
    const dir = stateDir();
    const host = hostOn(dir);
    const base = { ...DEFAULT_EXPORT_SETTINGS, enabled: true };
    for (const bad of [
      { ...base, listenHost: '0.0.0.0' },
      { ...base, listenHost: '192.168.1.5' },
      { ...base, listenPort: 80 },
      { ...base, otlpUrl: 'file:///etc/passwd' },
      { ...base, otlpUrl: 'http://user:secret@collector:4318' },
      { ...base, intervalSeconds: 0 },
      { ...base, extra: true },
    ]) {
      const result = await host.handle({ type: 'setExportSettings', settings: bad });
      expect(result.ok, JSON.stringify(bad)).toBe(false);
    }
    expect(existsSync(join(dir, EXPORT_SETTINGS_FILE))).toBe(false);
    expect(expectOk<ExportStatus>(await host.handle({ type: 'getExportSettings' })).url).toBeNull();
  });

  it('ignores a damaged saved file with the reason, and names who holds a port in use', async () => {
    const dir = stateDir();
    writeFileSync(join(dir, EXPORT_SETTINGS_FILE), JSON.stringify({ enabled: true, listenHost: '0.0.0.0' }));
    const host = hostOn(dir);
    const status = expectOk<ExportStatus>(await host.handle({ type: 'getExportSettings' }));
    expect(status.settings).toEqual(DEFAULT_EXPORT_SETTINGS);
    expect(status.url).toBeNull();
    expect(status.error).toMatch(/^saved export settings ignored: /);

    const taken = await listenOn();
    servers.push(taken);
    const refused = expectOk<ExportStatus>(
      await set(host, { ...DEFAULT_EXPORT_SETTINGS, enabled: true, listenPort: portOf(taken) }),
    );
    expect(refused.url).toBeNull();
    expect(refused.error).toContain(`port ${portOf(taken)} on 127.0.0.1 is in use by pid ${process.pid}`);
  });
});
