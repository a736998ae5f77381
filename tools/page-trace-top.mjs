#!/usr/bin/env node
/**
 * Sums a Chromium timeline trace of the page (the idle bench's IDLE_PAGE_TRACE) on the renderer's
 * main thread: self time per event (an event's time minus the events nested in it, so a paint
 * inside a hit test is not counted twice), and what each layout had to do (dirty objects of how
 * many, and whether it started below the root). Usage: node tools/page-trace-top.mjs FILE [n]
 */
import { readFileSync } from 'node:fs';

const [file, top = '20'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/page-trace-top.mjs FILE [n]');
  process.exit(2);
}
const { traceEvents } = JSON.parse(readFileSync(file, 'utf8'));
const threadNames = new Map();
for (const e of traceEvents)
  if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args.name);
// Complete events of the page's main thread, parents before their children.
const events = traceEvents
  .filter((e) => e.ph === 'X' && threadNames.get(`${e.pid}:${e.tid}`) === 'CrRendererMain')
  .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
const self = new Map();
const open = [];
for (const e of events) {
  while (open.length > 0 && open[open.length - 1].ts + open[open.length - 1].dur <= e.ts) open.pop();
  const parent = open[open.length - 1];
  if (parent !== undefined) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur);
  self.set(e.name, (self.get(e.name) ?? 0) + e.dur);
  open.push(e);
}
const spanS = events.length > 0 ? (events[events.length - 1].ts - events[0].ts) / 1e6 : 0;
console.log(`main thread over ${spanS.toFixed(1)} s, self ms by event:`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(`${(us / 1000).toFixed(1).padStart(9)}  ${name}`);
const layouts = events.filter((e) => e.name === 'Layout').map((e) => ({ ms: e.dur / 1000, ...e.args?.beginData }));
if (layouts.length > 0) {
  const dirty = layouts.map((l) => l.dirtyObjects ?? 0).sort((a, b) => a - b);
  const partial = layouts.filter((l) => l.partialLayout).length;
  const total = layouts.reduce((sum, l) => sum + l.ms, 0);
  console.log(
    `${layouts.length} layouts, ${total.toFixed(1)} ms (${(total / layouts.length).toFixed(2)} ms each); dirty objects median ${dirty[dirty.length >> 1]}, max ${dirty[dirty.length - 1]} of ${layouts[0].totalObjects}; ${partial} below the root`,
  );
}
