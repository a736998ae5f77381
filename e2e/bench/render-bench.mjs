#!/usr/bin/env node
/**
 * Render benchmark: how long the renderer takes to apply a system-table diff touching ~5 % of a
 * 5,000-process tree and re-render the virtualised view, in Debian's Chromium.
 *
 * The built renderer (apps/renderer/dist) is served from 127.0.0.1 by a tiny static server; a fake
 * `window.treewarden` bridge is injected before the page loads, so the measured path is the real
 * one: event validation (parseServerMessage), the store's applySystemDiff into a new Map, the tree
 * rows, React's commit and layout. Prints one JSON line (median / p95 ms) for `npm run bench`.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.mjs';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(REPO_ROOT, 'apps', 'renderer', 'dist');

export const PROCESS_COUNT = Number(process.env.BENCH_PROCESSES ?? 5000);
export const CHANGE_FRACTION = 0.05;
export const WARMUP_ROUNDS = 5;
export const MEASURED_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
/** Bound on waiting for the page to show the initial table. */
const READY_TIMEOUT_MS = 60_000;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

function serveDist() {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = join(DIST, path === '/' ? 'index.html' : path);
    if (!file.startsWith(DIST)) return response.writeHead(403).end();
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs in the page before the app: a BridgeApi whose events the benchmark pushes. */
function installFakeBridge() {
  const listeners = new Set();
  const results = {
    watchSystem: { enabled: true, processes: [] },
    listScenarios: { scenarios: [] },
    getHistory: { entries: [] },
  };
  window.__bench = {
    emit: (event) => {
      for (const listener of listeners) listener(event);
    },
  };
  window.treewarden = {
    request: async (command) =>
      command.type in results
        ? { kind: 'reply', id: 0, ok: true, result: results[command.type] }
        : { kind: 'reply', id: 0, ok: false, error: 'benchmark host' },
    onEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** A plausible machine: pid 1, ~60 services, each a tree up to 5 levels deep. */
function makeTable(count) {
  const now = Date.now();
  const nodes = [];
  const node = (pid, ppid, depth) => ({
    pid,
    startTime: String(1000 + pid),
    ppid,
    pgid: depth <= 1 ? pid : ppid,
    sid: depth <= 1 ? pid : 1,
    state: pid % 97 === 0 ? 'Z' : pid % 13 === 0 ? 'R' : 'S',
    uid: pid % 3 === 0 ? 0 : 1000,
    command: `worker-${pid % 40}`,
    commandLine: `/usr/lib/app/worker-${pid % 40} --id ${pid} --pool ${pid % 7}`,
    cwd: '/srv/app',
    cpuPercent: (pid % 50) / 10,
    rssBytes: (pid % 400) * 1024 * 1024,
    startedAtMs: now - pid * 1000,
    escaped: pid % 211 === 0,
  });
  nodes.push(node(1, 0, 0));
  for (let pid = 2; pid <= count; pid += 1) {
    const parent = pid <= 60 ? 1 : Math.max(2, Math.floor(pid / 5));
    const depth = pid <= 60 ? 1 : 2 + Math.floor(Math.log(pid) / Math.log(5));
    nodes.push(node(pid, parent, depth));
  }
  return nodes;
}

/** ~5 % of the table: CPU/memory updates, plus a few exits and new processes. */
function makeDiff(table, round, nextPid, withChurn) {
  const changes = Math.round(table.length * CHANGE_FRACTION);
  const upserts = [];
  const removed = [];
  const churn = withChurn ? Math.max(1, Math.round(changes * 0.04)) : 0;
  for (let i = 0; i < changes - 2 * churn; i += 1) {
    const index = (round * 7919 + i * 104729) % table.length;
    const current = table[index];
    const updated = { ...current, cpuPercent: ((round + i) % 400) / 4, rssBytes: current.rssBytes + 4096 * round };
    table[index] = updated;
    upserts.push(updated);
  }
  // pid 1 carries the round in its CPU column, so the page can prove the diff reached the DOM.
  table[0] = { ...table[0], cpuPercent: round };
  upserts.push(table[0]);
  for (let i = 0; i < churn; i += 1) {
    const index = table.length - 1 - ((round * 31 + i) % 500);
    const [gone] = table.splice(index, 1);
    removed.push(`${gone.pid}:${gone.startTime}`);
    const born = { ...gone, pid: nextPid.value, startTime: String(1000 + nextPid.value) };
    nextPid.value += 1;
    table.push(born);
    upserts.push(born);
  }
  return { type: 'systemDiff', full: false, upserts, removed };
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** Times MEASURED_ROUNDS diffs; `withChurn` adds exits and new processes (the tree's shape changes). */
async function timeDiffs(page, table, withChurn) {
  const nextPid = { value: PROCESS_COUNT + 1 + (withChurn ? 100_000 : 0) };
  const samples = [];
  for (let round = 1; round <= WARMUP_ROUNDS + MEASURED_ROUNDS; round += 1) {
    const diff = makeDiff(table, round, nextPid, withChurn);
    // Timed inside the page: emit → validation → store → React commit (microtasks) → layout.
    const ms = await page.evaluate(
      async ({ diff, expected }) => {
        const started = performance.now();
        window.__bench.emit(diff);
        // React flushes store updates in a microtask; one message-channel turn runs after them
        // without the clamping and scheduling slack of setTimeout.
        await new Promise((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = resolve;
          channel.port2.postMessage(null);
        });
        void document.body.offsetHeight; // force layout so it is part of the measurement
        const elapsed = performance.now() - started;
        const cell = document.querySelector('[data-pid="1"] .cell.num:nth-of-type(4)');
        if (!cell || cell.textContent !== expected)
          throw new Error(`diff not rendered: pid 1 CPU shows ${cell?.textContent}, expected ${expected}`);
        return elapsed;
      },
      { diff, expected: round >= 100 ? String(round) : round.toFixed(1) },
    );
    if (round > WARMUP_ROUNDS) samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return {
    medianMs: Number(percentile(samples, 0.5).toFixed(2)),
    p95Ms: Number(percentile(samples, 0.95).toFixed(2)),
    maxMs: Number(samples.at(-1).toFixed(2)),
  };
}

export async function runRenderBench() {
  const server = await serveDist();
  const { port } = server.address();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(installFakeBridge);
    await page.goto(`http://127.0.0.1:${port}/index.html`);
    await page.evaluate(() =>
      window.__bench.emit({
        type: 'snapshot',
        snapshot: {
          takenAtMs: Date.now(),
          pollIntervalMs: 1000,
          leases: [],
          orphans: [],
          counts: { live: 0, leaked: 0 },
        },
      }),
    );
    await page.getByRole('tab', { name: 'All processes' }).click();
    const table = makeTable(PROCESS_COUNT);
    await page.evaluate(
      (upserts) => window.__bench.emit({ type: 'systemDiff', full: true, upserts, removed: [] }),
      table,
    );
    await page.getByText(`${PROCESS_COUNT} processes`).waitFor({ timeout: READY_TIMEOUT_MS });

    const metricsOnly = await timeDiffs(page, table, false);
    const withChurn = await timeDiffs(page, table, true);
    return {
      benchmark: 'renderer-system-tree-update',
      processes: PROCESS_COUNT,
      changedPerDiff: Math.round(PROCESS_COUNT * CHANGE_FRACTION),
      rounds: MEASURED_ROUNDS,
      // CPU/memory changes only: the row order is kept, only visible rows re-read their nodes.
      metricsOnly,
      // The same plus ~4 % of the changes as exits and new processes: the tree is re-flattened.
      withChurn,
    };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runRenderBench();
  console.log(JSON.stringify(result));
}
