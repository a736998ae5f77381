#!/usr/bin/env node
// In-process A/B of the poll worker's agent observer (helper idle-5): the host's `observeAgents`
// of two builds (each its own state dir) ticked alternately in this one thread, CPU per tick from
// /proc/thread-self/schedstat (ns), plus the structured clone of each answer (what the worker's
// postMessage and the main thread's receipt cost) and the number of roots each would hand the root watch.
//
//   node tools/observer-ab.mjs [--sessions 10] [--procs 1000] [--ticks 120] [--every 1000] ROOT_A ROOT_B
//
// ROOT_x: a built checkout (its packages/host/dist is imported). The fake sessions and load are
// started from this worktree's packages/bench/dist and ended (by recorded pid/group) at exit.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { benchModule, FAKE_CLAUDE, optionReader } from './lib/idle-tools.mjs';

const { AGENT_STUBS, endFakeSession, startFakeSession } = await benchModule('fake-session.js');
const { createLoad } = await benchModule('pause-load.js');

const args = process.argv.slice(2);
const opt = optionReader(args);
const sessionsWanted = Number(opt('sessions', '10'));
const procs = Number(opt('procs', '1000'));
const ticks = Number(opt('ticks', '120'));
const every = Number(opt('every', '1000'));
const roots = args.map((path) => resolve(path));
if (roots.length === 0) throw new Error('usage: observer-ab.mjs [options] ROOT_A [ROOT_B]');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const processCount = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
const threadNs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};

const variants = [];
for (const root of roots) {
  const mod = await import(pathToFileURL(join(root, 'packages/host/dist/poll/agent-observer.js')).href);
  variants.push({
    name: root,
    observe: mod.observeAgents,
    dir: mkdtempSync(join(tmpdir(), 'tw-idle5-ab-')),
    tick: [],
    clone: [],
    bytes: 0,
    rows: 0,
    live: 0,
  });
}

const load = createLoad();
const sessions = [];
try {
  for (let index = 0; index < sessionsWanted; index += 1)
    sessions.push(
      await startFakeSession({
        fixture: FAKE_CLAUDE,
        label: 'idle5ab',
        reports: 5,
        readyMs: 60_000,
        lifetimeMs: 3_600_000,
        stub: AGENT_STUBS[index % AGENT_STUBS.length].stub,
      }),
    );
  const fill = procs - processCount();
  if (fill > 0) await load.startFlat(fill);
  const load0 = loadavg()[0];
  console.log(
    `sessions ${sessions.length}, procs ${processCount()}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // Warm-up (first full scans, JIT): not counted.
  for (let round = 0; round < 15; round += 1)
    for (const variant of variants) {
      variant.observe(variant.dir);
      await sleep(every / variants.length);
    }
  for (let round = 0; round < ticks; round += 1)
    for (const variant of variants) {
      const t0 = threadNs();
      const scan = variant.observe(variant.dir);
      const t1 = threadNs();
      const bytes = serialize(scan);
      deserialize(bytes);
      const t2 = threadNs();
      variant.tick.push((t1 - t0) / 1e6);
      variant.clone.push((t2 - t1) / 1e6);
      variant.bytes = bytes.length;
      variant.rows = scan.rows.length;
      variant.live = scan.rows.filter((row) => row.state === 'live').length;
      await sleep(every / variants.length);
    }
  for (const v of variants) {
    const sum = v.tick.reduce((a, b) => a + b, 0);
    const clone = v.clone.reduce((a, b) => a + b, 0);
    console.log(
      `${v.name}: tick mean ${(sum / v.tick.length).toFixed(2)} ms, median ${median(v.tick).toFixed(2)}, max ${Math.max(...v.tick).toFixed(1)} | clone mean ${(clone / v.clone.length).toFixed(2)} ms (${v.bytes} B) | ${(((sum + clone) / (v.tick.length * every)) * 100).toFixed(3)} % of a core at one tick per ${every} ms | rows ${v.rows}, live ${v.live}`,
    );
  }
  console.log(`procs ${processCount()}, load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}`);
} finally {
  for (const session of sessions) endFakeSession(session);
  await load.end();
  for (const v of variants) rmSync(v.dir, { recursive: true, force: true });
}
