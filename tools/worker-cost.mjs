#!/usr/bin/env node
/**
 * What each kind of poll-worker request costs at idle, on this machine as it is: the host's poll
 * worker driven at serve's cadence with the All processes view open (a full table every second,
 * the whole port map every 2 s, agents every second, orphans every 5 s), for SECONDS (default 30).
 * Prints each kind's wall time in the worker per second and the worker thread's CPU % (its
 * utime+stime), so a change to one kind is weighed without the page and serve's main thread.
 * KINDS=all,agents (a comma list) drives only those kinds.
 * Usage: node tools/worker-cost.mjs [seconds] [stateDir]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkerTableReader } from '@treewarden/host';

const seconds = Number(process.argv[2] ?? 30);
const stateDir = process.argv[3] ?? mkdtempSync(join(tmpdir(), 'tw-worker-cost-'));
const reader = createWorkerTableReader();

function threadTicks() {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, Number(fields[11]) + Number(fields[12]));
  }
  return out;
}

const spent = { all: 0, ports: 0, agents: 0, orphans: 0 };
const kinds = new Set((process.env.KINDS ?? Object.keys(spent).join(',')).split(','));
async function timed(kind, read) {
  if (!kinds.has(kind)) return;
  await read();
  spent[kind] += reader.lastRead()?.durationMs ?? 0;
}
// Warm up: the reader holds its files from the second read on, the port reader caches.
for (let i = 0; i < 3; i += 1) await reader.readAll();
const before = threadTicks();
const started = Date.now();
for (let second = 0; second < seconds; second += 1) {
  const tickStart = Date.now();
  await timed('all', () => reader.readAll());
  if (second % 2 === 0) await timed('ports', () => reader.readPorts(null));
  await timed('agents', () => reader.observeAgents(stateDir));
  if (second % 5 === 0) await timed('orphans', () => reader.scanOrphans(stateDir));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - tickStart))));
}
const elapsedS = (Date.now() - started) / 1000;
const after = threadTicks();
let worker = { tid: '', pct: 0 };
for (const [tid, ticks] of after) {
  if (tid === String(process.pid)) continue;
  const pct = (ticks - (before.get(tid) ?? 0)) / elapsedS;
  if (pct > worker.pct) worker = { tid, pct };
}
const perSecond = Object.fromEntries(Object.entries(spent).map(([k, ms]) => [k, Number((ms / elapsedS).toFixed(2))]));
console.log(
  JSON.stringify({
    processes: (await reader.readAll())?.entries.size,
    msPerSecond: perSecond,
    workerThreadPct: Number(worker.pct.toFixed(2)),
  }),
);
await reader.close();
