#!/usr/bin/env node
/**
 * Idle cost with the UI open: a real `treewarden serve` and Debian's Chromium on its page, the
 * All processes view (or another, IDLE_VIEW) showing, nothing else happening. Samples
 * utime+stime of the serve process and of every Chromium process over IDLE_SECONDS and prints
 * % of one core for serve and for the page's renderer, with the machine's process count.
 * Targets: serve ≤ 2 %, renderer ≤ 2 % at ~1,000 processes.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.mjs';

const CLI = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));
const SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const VIEW = process.env.IDLE_VIEW ?? 'All processes';
const TICKS = 100; // USER_HZ on Linux
const TARGET_PCT = 2;

function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
function descendants(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {}
  }
  const out = [];
  const walk = (pid) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}
const argvOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};

/** Sleepers to bring the machine to about IDLE_PROCESSES (one process group, ended at the end). */
const TARGET_PROCESSES = Number(process.env.IDLE_PROCESSES ?? 1000);
const present = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
const sleepers = Math.max(0, TARGET_PROCESSES - present - 40);
const crowd = spawn('/bin/sh', ['-c', `i=0; while [ $i -lt ${sleepers} ]; do sleep 3600 & i=$((i+1)); done; wait`], {
  detached: true,
  stdio: 'ignore',
});
// Ended whatever happens below (by its process group: the sleepers are in it).
process.on('exit', () => {
  try {
    process.kill(-crowd.pid, 'SIGKILL');
  } catch {}
});
await new Promise((resolve) => setTimeout(resolve, 2000 + sleepers * 2));
const serveArgs = process.env.IDLE_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.IDLE_PROFILE_DIR}`] : [];
const serve = spawn(process.execPath, [...serveArgs, CLI, 'serve', '--no-open', '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let url = '';
await new Promise((resolve, reject) => {
  serve.stdout.on('data', (chunk) => {
    const match = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(String(chunk));
    if (match) {
      url = match[0];
      resolve();
    }
  });
  serve.once('exit', () => reject(new Error('serve exited')));
});
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.getByRole('tab', { name: VIEW }).click();
  await page.waitForTimeout(5000);
  const browserPid = descendants(process.pid).find((pid) => argvOf(pid)[0]?.includes('chromium'));
  const renderers = descendants(browserPid ?? -1).filter((pid) => argvOf(pid).join(' ').includes('--type=renderer'));
  if (process.env.IDLE_DEBUG)
    for (const pid of descendants(browserPid ?? -1)) console.error(pid, argvOf(pid).slice(0, 3).join(' '));
  const chromiumAll = [browserPid, ...descendants(browserPid ?? -1)];
  const before = {
    serve: cpuTicks(serve.pid),
    renderer: renderers.reduce((s, p) => s + cpuTicks(p), 0),
    all: chromiumAll.reduce((s, p) => s + cpuTicks(p), 0),
  };
  const started = Date.now();
  // IDLE_PAGE_PROFILE=FILE: the page's main thread profiled over the window (Chromium's sampler).
  const cdp = process.env.IDLE_PAGE_PROFILE ? await page.context().newCDPSession(page) : null;
  const metricsOf = async (session) =>
    Object.fromEntries((await session.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const perf = process.env.IDLE_PAGE_METRICS ? await page.context().newCDPSession(page) : null;
  if (perf) await perf.send('Performance.enable');
  const perfBefore = perf ? await metricsOf(perf) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  if (perf && perfBefore) {
    const after = await metricsOf(perf);
    const keys = [
      'TaskDuration',
      'ScriptDuration',
      'LayoutDuration',
      'RecalcStyleDuration',
      'LayoutCount',
      'RecalcStyleCount',
      'Nodes',
    ];
    console.error(
      Object.fromEntries(keys.map((k) => [k, Number((after[k] - (k === 'Nodes' ? 0 : perfBefore[k])).toFixed(3))])),
    );
  }
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(process.env.IDLE_PAGE_PROFILE, JSON.stringify(profile));
  }
  const seconds = (Date.now() - started) / 1000;
  const pct = (ticks) => ((ticks / TICKS / seconds) * 100).toFixed(2);
  const processes = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
  console.log(
    JSON.stringify({
      view: VIEW,
      processes,
      seconds,
      servePct: Number(pct(cpuTicks(serve.pid) - before.serve)),
      rendererPct: Number(pct(renderers.reduce((s, p) => s + cpuTicks(p), 0) - before.renderer)),
      chromiumAllPct: Number(pct(chromiumAll.reduce((s, p) => s + cpuTicks(p), 0) - before.all)),
    }),
  );
  const servePct = Number(pct(cpuTicks(serve.pid) - before.serve));
  const rendererPct = Number(pct(renderers.reduce((s, p) => s + cpuTicks(p), 0) - before.renderer));
  console.log(
    `${servePct <= TARGET_PCT ? 'PASS' : 'FAIL'} idle serve ${servePct} % of a core (target ≤ ${TARGET_PCT} %)`,
  );
  console.log(
    `${rendererPct <= TARGET_PCT ? 'PASS' : 'FAIL'} idle renderer ${rendererPct} % of a core (target ≤ ${TARGET_PCT} %)`,
  );
} finally {
  await browser.close();
  serve.kill('SIGTERM');
}
