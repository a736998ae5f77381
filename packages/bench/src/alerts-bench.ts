/**
 * Pile-up alert benchmark: what judging live sessions' alerts adds to the agent observer's tick.
 * (1) Real: ~1,000 processes alive and one live fake Claude session holding piles (duplicate MCP
 * sets, subagents, a reparented one); the observer's own tick (floor) and the alert tracker's tick
 * on that tick's observation, CPU per tick and as a share of one core at WATCH_TICK_MS.
 * (2) Worst case: one session of ~1,000 members (the public reports' piles reach 464 and 309) with
 * every sample ring full, an injected table, since this machine cannot hold such a session for
 * every bench run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AgentObservation,
  clockTicks,
  createAgentWatcher,
  createAlertTracker,
  createLinuxReader,
  DEFAULT_ALERT_CONFIG,
  type LiveSession,
  loadAgentRules,
  MAX_SAMPLES_PER_PROCESS,
  markerReaderFor,
  type ProcessEntry,
  SAMPLE_SPACING_MS,
  WATCH_TICK_MS,
} from '@treewarden/engine';
import { endFakeSession, type FakeSession, startFakeSession } from './fake-session.js';
import { createLoad } from './pause-load.js';
import { formatMs, formatRatio, markdownTable, measureCpuMs, median } from './util.js';

export const ALERTS_BENCH_LOAD = 1_000;
/** The budget: alert judgement adds ≤ 0.2 % of a core to the idle observer. */
export const TARGET_ALERT_CPU_PERCENT = 0.2;
const ROUNDS = 21;
/** Judgements per timed sample: one takes well under a millisecond. */
const CALLS_PER_SAMPLE = 20;
const SESSION_READY_MS = 30_000;
const SESSION_LIFETIME_MS = 600_000;
const PILE = { PILE_MCP_SETS: '6', PILE_SUBAGENTS: '4', PILE_ORPHAN_SUBAGENTS: '2' };
/** Root + 6 × (wrapper + server) + 4 + 2 subagents. */
const PILE_REPORTS = 19;
const FAKE_PILES = fileURLToPath(import.meta.resolve('@treewarden/engine/fixtures/agents/fake-claude-piles.mjs'));
/** The synthetic worst case: members of one live session. */
const WORST_MEMBERS = 1_000;

function startPile(): Promise<FakeSession> {
  return startFakeSession({
    fixture: FAKE_PILES,
    label: 'alerts',
    reports: PILE_REPORTS,
    readyMs: SESSION_READY_MS,
    lifetimeMs: SESSION_LIFETIME_MS,
    env: PILE,
  });
}

/** CPU ms per call of `run`, median over ROUNDS samples of CALLS_PER_SAMPLE calls. */
async function perCallMs(run: () => unknown, ticks: number): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1)
    samples.push(
      (await measureCpuMs(() => {
        for (let call = 0; call < CALLS_PER_SAMPLE; call += 1) run();
      }, ticks)) / CALLS_PER_SAMPLE,
    );
  return median(samples);
}

function entry(pid: number, ppid: number, args: string[], startTicks: number): ProcessEntry {
  return {
    pid,
    ppid,
    pgid: 100,
    sid: 100,
    startTime: String(startTicks),
    state: 'S',
    uid: 0,
    command: 'node',
    args,
    cwd: '/tmp',
    cpuTimeMs: 20,
    rssBytes: 50 * 1024 * 1024,
    startedAtMs: Date.now() - 3_600_000 + startTicks,
  };
}

/** One live session of WORST_MEMBERS: MCP sets of 25 command lines, subagents (a fifth reparented), shells. */
function worstCase(): AgentObservation {
  const root = entry(100, 1, ['claude'], 1);
  const members: LiveSession['members'][number][] = [];
  let pid = 1000;
  const add = (ppid: number, role: LiveSession['members'][number]['role'], args: string[]) => {
    pid += 1;
    members.push({ entry: entry(pid, ppid, args, pid), role, via: 'descendant' });
    return pid;
  };
  for (let set = 0; set < 300; set += 1) {
    const wrapper = add(100, 'mcp-server', ['npm', 'exec', `@x/server-${set % 25}`]);
    add(wrapper, 'mcp-server', ['node', `/x/server-${set % 25}/index.js`]);
  }
  for (let sub = 0; sub < 200; sub += 1)
    add(sub % 5 === 0 ? 1 : 100, 'subagent', ['claude', '--output-format', 'stream-json', '--resume', `${sub}`]);
  while (members.length < WORST_MEMBERS) add(100, 'shell', ['bash', '-c', 'sleep 1000']);
  const entries = new Map<number, ProcessEntry>([
    [root.pid, root],
    ...members.map((m) => [m.entry.pid, m.entry] as const),
  ]);
  const live: LiveSession = { id: 'claude-code-100-1', agent: 'claude-code', root, members, sessionKeys: [] };
  return {
    table: { entries, readAtMs: Date.now() },
    live: [live],
    sessions: [],
    leaks: [],
    started: [],
    ended: [],
    problems: [],
  };
}

function percentOfCore(ms: number): number {
  return (ms / WATCH_TICK_MS) * 100;
}

export async function runAlertsBench(): Promise<string> {
  if (process.platform !== 'linux') return '_Alerts benchmark skipped: it reads /proc and needs Linux._';
  const ticks = clockTicks();
  const stateRoot = mkdtempSync(join(tmpdir(), 'tw-alerts-bench-state-'));
  const load = createLoad();
  let session: FakeSession | null = null;
  try {
    session = await startPile();
    await load.startFlat(Math.max(0, ALERTS_BENCH_LOAD - createLinuxReader().snapshot().entries.size));
    const processes = createLinuxReader().snapshot().entries.size;
    const { rules } = loadAgentRules(stateRoot);
    const watcher = createAgentWatcher({ stateRoot, rules, readMarkers: markerReaderFor(rules) });
    const alerts = createAlertTracker({ config: DEFAULT_ALERT_CONFIG });
    let observation = watcher.tick().observation;
    alerts.tick(observation);
    let now = Date.now();
    const observerMs = await perCallMs(() => {
      now += WATCH_TICK_MS;
      observation = watcher.tick(now).observation;
    }, ticks);
    const found = alerts.tick(observation).alerts.length;
    const judgeMs = await perCallMs(() => alerts.tick(observation), ticks);
    const members = observation.live.reduce((sum, live) => sum + live.members.length, 0);
    const worst = worstCase();
    const worstTracker = createAlertTracker({ config: DEFAULT_ALERT_CONFIG });
    // A full history first (every ring at its bound), then ticks at the observer's own pace:
    // one tick in SAMPLE_SPACING_MS / WATCH_TICK_MS adds samples and walks the windows again.
    let at = Date.now();
    const tickAt = (step: number) => {
      at += step;
      return worstTracker.tick({ ...worst, table: { ...worst.table, readAtMs: at } }, at);
    };
    for (let sample = 0; sample < MAX_SAMPLES_PER_PROCESS; sample += 1) tickAt(SAMPLE_SPACING_MS);
    const worstAlerts = tickAt(WATCH_TICK_MS).alerts.length;
    const worstMs = await perCallMs(() => tickAt(WATCH_TICK_MS), ticks);
    const pass = (ms: number) => (percentOfCore(ms) <= TARGET_ALERT_CPU_PERCENT ? 'PASS' : 'FAIL');
    const rows = [
      ['observer tick, focused (CPU ms; the floor)', formatMs(observerMs), ''],
      [
        `alert judgement per tick (CPU ms; ${members} members, ${found} alerts)`,
        formatMs(judgeMs),
        `${formatRatio(judgeMs / observerMs)} the observer tick`,
      ],
      [
        `alert judgement, % of a core at ${WATCH_TICK_MS} ms ticks`,
        percentOfCore(judgeMs).toFixed(3),
        `${pass(judgeMs)}: target ≤ ${TARGET_ALERT_CPU_PERCENT}`,
      ],
      [
        `worst case: one session of ${WORST_MEMBERS} members, full history (${worstAlerts} alerts), % of a core`,
        percentOfCore(worstMs).toFixed(3),
        `${pass(worstMs)}: target ≤ ${TARGET_ALERT_CPU_PERCENT} (${formatMs(worstMs)} ms per tick)`,
      ],
    ];
    return `${processes} processes alive, one live fake Claude session holding piles.\n\n${markdownTable(['measure', 'value', 'note'], rows)}`;
  } finally {
    if (session !== null) endFakeSession(session);
    await load.end();
    rmSync(stateRoot, { recursive: true, force: true });
  }
}
