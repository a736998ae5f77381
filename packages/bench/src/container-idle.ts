/**
 * The agent observer's idle cost with the container engine's event stream open, at about
 * IDLE_PROCESSES processes: a real watcher ticking at its own cadence (WATCH_TICK_MS, a full scan
 * every FULL_SCAN_INTERVAL_MS) while the stream is connected and nothing happens, measured as this
 * process's CPU time (user + system) over the wall time. Filler processes (`sleep`) make up the
 * count and are ended by pid afterwards. Target ≤ 0.5 % of a core.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAgentWatcher,
  FULL_SCAN_INTERVAL_MS,
  loadAgentRules,
  markerReaderFor,
  readProcTable,
  WATCH_TICK_MS,
} from '@treewarden/engine';
import { sleep } from './util.js';

export const IDLE_PROCESSES = 1000;
/** Long enough for several full scans. */
const IDLE_WINDOW_MS = 60_000;
const TARGET_PERCENT = 0.5;
const STREAM_WAIT_MS = 20_000;

/** The idle % of a core, and the process count, with the stream open (a socket) or none (null). */
async function idlePercent(
  socketPath: string | null,
): Promise<{ percent: number; processes: number; wallMs: number } | string> {
  const stateRoot = mkdtempSync(join(tmpdir(), 'tw-bench-idle-'));
  const fillers: ChildProcess[] = [];
  try {
    const present = readProcTable().entries.size;
    for (let i = present; i < IDLE_PROCESSES; i += 1) fillers.push(spawn('sleep', ['900'], { stdio: 'ignore' }));
    await sleep(1000);
    const processes = readProcTable().entries.size;
    const loaded = loadAgentRules(stateRoot);
    let connected = false;
    const watcher = createAgentWatcher({
      stateRoot,
      rules: loaded.rules,
      readMarkers: markerReaderFor(loaded.rules),
      engineSocket: socketPath,
      onEngineConnected: () => {
        connected = true;
      },
    });
    try {
      watcher.tick(); // The first full scan opens the stream.
      for (let waited = 0; socketPath !== null && !connected && waited < STREAM_WAIT_MS; waited += 100)
        await sleep(100);
      if (socketPath !== null && !connected)
        return `_skipped: the engine's event stream did not open within ${STREAM_WAIT_MS} ms_`;
      // Warm: a full scan's caches (markers, environ) are what an idle observer runs with.
      for (let i = 0; i < 3; i += 1) {
        watcher.tick();
        await sleep(WATCH_TICK_MS);
      }
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      while (performance.now() - wallBefore < IDLE_WINDOW_MS) {
        watcher.tick();
        await sleep(WATCH_TICK_MS);
      }
      const cpu = process.cpuUsage(cpuBefore);
      const wall = performance.now() - wallBefore;
      return { percent: ((cpu.user + cpu.system) / 1000 / wall) * 100, processes, wallMs: wall };
    } finally {
      watcher.close();
    }
  } finally {
    // Reaped before the next measure counts the table (a zombie still counts as a process).
    const exits = fillers
      .filter((filler) => filler.exitCode === null && filler.signalCode === null)
      .map((filler) => new Promise((resolve) => filler.once('exit', resolve)));
    for (const filler of fillers) if (filler.exitCode === null) filler.kill('SIGKILL');
    await Promise.all(exits);
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

/** With the stream open, and the same observer without it: what the stream itself adds. */
export async function observerIdleWithStream(socketPath: string): Promise<string> {
  const withStream = await idlePercent(socketPath);
  if (typeof withStream === 'string') return withStream;
  const without = await idlePercent(null);
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  const row = (what: string, m: { percent: number; processes: number; wallMs: number }, target: string) =>
    `| observer idle ${what}, ${m.processes} processes (tick ${WATCH_TICK_MS} ms, full scan every ${FULL_SCAN_INTERVAL_MS} ms, ${Math.round(m.wallMs / 1000)} s) | ${m.percent.toFixed(2)} % of a core | ${target} |`;
  return [
    `| measure (load ${load}) | value | target |`,
    '|---|---:|---:|',
    row(
      'with the event stream open',
      withStream,
      `${withStream.percent <= TARGET_PERCENT ? 'PASS' : 'FAIL'}: ≤ ${TARGET_PERCENT} %`,
    ),
    typeof without === 'string'
      ? `| without a stream | ${without} | |`
      : row('without a container engine', without, ''),
  ].join('\n');
}
