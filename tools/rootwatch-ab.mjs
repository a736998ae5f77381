#!/usr/bin/env node
// In-process A/B of the two ways a host learns that a live session root exited (helper idle-5):
// the timer look (engine createRootWatch, one pread per root every ROOT_CHECK_INTERVAL_MS) and the
// exit watch (pidfd, a thread asleep in poll). Both watch the same N live processes (node, like an
// agent root) in alternating windows; CPU of every thread of this process from schedstat (ns).
//
//   node tools/rootwatch-ab.mjs [--roots 20] [--window 10] [--rounds 6]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const { createExitWatch, createRootWatch, ROOT_CHECK_INTERVAL_MS } = await import(
  resolve(here, '../packages/engine/dist/index.js')
);
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(args[at + 1]);
};
const roots = opt('roots', 20);
const windowMs = opt('window', 10) * 1000;
const rounds = opt('rounds', 6);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const processNs = () => {
  let total = 0;
  for (const tid of readdirSync('/proc/self/task'))
    try {
      total += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {}
  return total;
};
const startOf = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

const children = [];
for (let i = 0; i < roots; i += 1)
  children.push(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' }));
try {
  await sleep(1500);
  const identities = children.map((child) => ({ pid: child.pid, startTime: startOf(child.pid) }));
  let told = 0;
  const exits = createExitWatch(() => {
    told += 1;
  });
  if (exits === null) throw new Error('no pidfd exit watch here');
  // The thread's start (~0.1 s of CPU, once per host) is not part of the idle cost.
  exits.watch(identities);
  await sleep(1000);
  exits.watch([]);
  const results = { look: [], pidfd: [] };
  for (let round = 0; round < rounds; round += 1) {
    // Timer look, as the poller ran it.
    const watch = createRootWatch();
    const timer = setInterval(() => watch.exited(identities), ROOT_CHECK_INTERVAL_MS);
    let t0 = processNs();
    await sleep(windowMs);
    results.look.push((processNs() - t0) / 1e6);
    clearInterval(timer);
    watch.close();
    // Exit watch: handed the roots once, as the poller does after a tick.
    exits.watch(identities);
    t0 = processNs();
    await sleep(windowMs);
    results.pidfd.push((processNs() - t0) / 1e6);
    exits.watch([]);
  }
  exits.close();
  const pct = (ms) => ((ms / windowMs) * 100).toFixed(3);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `${roots} live roots, ${rounds} × ${windowMs / 1000} s windows each, alternating; load ${loadavg()[0].toFixed(2)}`,
  );
  console.log(
    `timer look (${ROOT_CHECK_INTERVAL_MS} ms): ${results.look.map(pct).join(' ')} → mean ${pct(mean(results.look))}, median ${pct(median(results.look))} % of a core`,
  );
  console.log(
    `pidfd exit watch:   ${results.pidfd.map(pct).join(' ')} → mean ${pct(mean(results.pidfd))}, median ${pct(median(results.pidfd))} % of a core`,
  );
  console.log(`exits told (none expected): ${told}`);
} finally {
  for (const child of children) child.kill('SIGKILL');
}
