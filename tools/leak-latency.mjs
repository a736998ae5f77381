#!/usr/bin/env node
// Death of a session's root → its leftovers in the host's snapshot (helper idle-5): a host polling
// every 30 s (only the root watch can bring the leak sooner), one fake Claude session per trial,
// the root SIGKILLed, the time until every survivor is an agent orphan of the snapshot. Both root
// watches alternately: the pidfd exit watch (default) and the 250 ms timer look.
//
//   node tools/leak-latency.mjs [--trials 6]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const { createEngineHost, createEnginePort } = await import(resolve(here, '../packages/host/dist/index.js'));
const { endFakeSession, startFakeSession } = await import(resolve(here, '../packages/bench/dist/fake-session.js'));
const FAKE_CLAUDE = resolve(here, '../packages/engine/fixtures/agents/fake-claude.mjs');
const at = process.argv.indexOf('--trials');
const trials = at < 0 ? 6 : Number(process.argv[at + 1]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function trial(rootExitEvents) {
  const stateDir = mkdtempSync(join(tmpdir(), 'tw-idle5-lat-'));
  const host = createEngineHost({ port: createEnginePort({ stateDir }), pollIntervalMs: 30_000, rootExitEvents });
  let latest = null;
  host.onEvent((event) => {
    if (event.type === 'snapshot') latest = { snapshot: event.snapshot, at: performance.now() };
  });
  const session = await startFakeSession({
    fixture: FAKE_CLAUDE,
    label: 'idle5lat',
    reports: 5,
    readyMs: 60_000,
    lifetimeMs: 120_000,
  });
  try {
    const root = session.pids[0];
    let view;
    for (let tries = 0; view === undefined; tries += 1) {
      if (tries > 20) throw new Error('session not seen');
      await host.pollNow();
      view = latest?.snapshot.sessions?.find((s) => s.root.pid === root && s.state === 'live');
      if (view === undefined) await sleep(200);
    }
    await sleep(500 + Math.random() * 250); // a random phase against the 250 ms look
    const killedAt = performance.now();
    process.kill(root, 'SIGKILL');
    const survivors = session.pids.filter((pid) => pid !== root);
    for (;;) {
      const pids = new Set(
        (latest?.snapshot.orphans ?? [])
          .filter((o) => o.kind === 'agent' && o.sessionId === view.id)
          .map((o) => o.process.pid),
      );
      if (survivors.every((pid) => pids.has(pid))) return latest.at - killedAt;
      if (performance.now() - killedAt > 10_000) return Number.POSITIVE_INFINITY;
      await sleep(5);
    }
  } finally {
    endFakeSession(session);
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const results = { pidfd: [], look: [] };
for (let i = 0; i < trials; i += 1) {
  results.pidfd.push(await trial(true));
  results.look.push(await trial(false));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of Object.entries(results))
  console.log(
    `${name}: death → leak in snapshot ms ${xs.map((x) => x.toFixed(0)).join(' ')} (median ${median(xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`,
  );
console.log(`load ${loadavg()[0].toFixed(2)}`);
