#!/usr/bin/env node
// Idle cost of `treewarden export` with live agent sessions, per thread (helper idle-5).
//
//   node tools/idle-sessions.mjs [--sessions 10] [--procs 1000] [--settle 60] [--window 30]
//        [--rounds 1] [--prof DIR] CLI_MAIN [CLI_MAIN...]
//
// Loads the machine to ~--procs processes (the bench's pause-tree load), starts --sessions fake
// sessions of five agents' launch shapes (packages/bench's fake-session.ts), then for each round
// and each CLI given (alternately: A B A B …) starts `CLI export`, lets it settle, and reads every
// thread's utime+stime from /proc/PID/task/*/stat over the window. Prints one line per run.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchModule, FAKE_CLAUDE, optionReader } from './lib/idle-tools.mjs';

const { AGENT_STUBS, endFakeSession, startFakeSession } = await benchModule('fake-session.js');
const { createLoad } = await benchModule('pause-load.js');

const args = process.argv.slice(2);
const opt = optionReader(args);
const sessionsWanted = Number(opt('sessions', '10'));
const procs = Number(opt('procs', '1000'));
const settleMs = Number(opt('settle', '60')) * 1000;
const windowMs = Number(opt('window', '30')) * 1000;
const rounds = Number(opt('rounds', '1'));
const profDir = opt('prof', null);
const command = opt('cmd', 'export');
const COMMAND_ARGS = {
  export: ['export', '--listen', '127.0.0.1:0'],
  serve: ['serve', '--no-open', '--port', '0'],
  watch: ['watch', '--json'],
};
const clis = args.map((path) => resolve(path));
if (clis.length === 0) throw new Error('usage: idle-sessions.mjs [options] CLI_MAIN...');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const processCount = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;

/** Each thread's CPU time (ms, from schedstat: nanoseconds, where stat counts 10 ms ticks) and name. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(tid, { comm, ms: ns / 1e6 });
    } catch {}
  }
  return out;
}

async function measure(cli) {
  const home = mkdtempSync(join(tmpdir(), 'tw-idle5-home-'));
  const nodeArgs = profDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', profDir];
  const child = spawn(process.execPath, [...nodeArgs, cli, ...COMMAND_ARGS[command]], {
    env: { ...process.env, TREEWARDEN_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.resume();
  // export prints its URL first; serve and watch are just given the settling time.
  const url =
    command !== 'export'
      ? null
      : await new Promise((res, rej) => {
          let text = '';
          child.stdout.on('data', (chunk) => {
            text += chunk;
            if (text.includes('\n')) res(text.split('\n')[0].trim());
          });
          child.once('exit', () => rej(new Error('export exited')));
        });
  await sleep(settleMs);
  let live = '-';
  if (url !== null) {
    const metrics = await (await fetch(url)).text();
    live = 0;
    for (const m of metrics.matchAll(/^treewarden_agent_sessions\{agent="[^"]+",state="live"\} (\S+)$/gm))
      live += Number(m[1]);
  }
  const before = threads(child.pid);
  const load0 = loadavg()[0];
  await sleep(windowMs);
  const after = threads(child.pid);
  const load1 = loadavg()[0];
  const per = new Map();
  for (const [tid, { comm, ms }] of after) {
    const used = ms - (before.get(tid)?.ms ?? 0);
    const name = tid === String(child.pid) ? 'main' : `${comm}#${tid}`;
    per.set(name, (per.get(name) ?? 0) + used);
  }
  const total = [...per.values()].reduce((a, b) => a + b, 0);
  const pct = (ms) => ((ms / windowMs) * 100).toFixed(2);
  const split = [...per]
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${ms.toFixed(0)}ms`)
    .join(', ');
  console.log(
    `${command} ${cli}: total ${pct(total)} % (${total.toFixed(0)} ms / ${windowMs / 1000} s) | ${split} | live ${live} | procs ${processCount()} | load ${load0.toFixed(2)}→${load1.toFixed(2)}`,
  );
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  rmSync(home, { recursive: true, force: true });
}

const load = createLoad();
const sessions = [];
try {
  for (let index = 0; index < sessionsWanted; index += 1)
    sessions.push(
      await startFakeSession({
        fixture: FAKE_CLAUDE,
        label: 'idle5',
        reports: 5,
        readyMs: 60_000,
        lifetimeMs: 3_600_000,
        stub: AGENT_STUBS[index % AGENT_STUBS.length].stub,
      }),
    );
  const fill = procs - processCount();
  if (fill > 0) await load.startFlat(fill);
  console.log(
    `sessions ${sessions.length}, procs ${processCount()}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 0; round < rounds; round += 1) for (const cli of clis) await measure(cli);
} finally {
  for (const session of sessions) endFakeSession(session);
  await load.end();
}
