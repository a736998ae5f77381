/**
 * The container driver: a doomed fake Claude session whose Bash tool ran `docker run -d` (a real
 * Docker Engine, the offline busybox image, `--network none`), a second session whose container
 * stays in use, and a person's own container nobody's agent started. The engine's watcher follows
 * the event stream and attributes each session's container as its CLI creates it. The doomed
 * session's root is SIGKILLed; its container runs on under containerd-shim. Treewarden mode stops
 * exactly that container through the engine API (what `orphans --clean` does: re-inspect id and
 * creation time, stop with a grace, then kill; never remove); naive mode computes what
 * `docker ps -q | xargs docker stop` and `pkill -f docker` would hit. Teardown removes the
 * scenario's own containers by id.
 */

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  type CleanedContainer,
  cleanContainerLeftovers,
  containerLeftovers,
  createAgentWatcher,
  engineRequest,
  findEngineSocket,
  inspectContainer,
  pollUntil,
  readProcEntry,
  readProcTable,
  readSessionContainers,
  readSessions,
  type SessionContainer,
} from '@treewarden/engine';
import { sweepScenario } from '../cleanup.js';
import type { DriverTools, ScenarioContext, ScenarioOutcomeFacts } from '../types.js';
import { type FakeSession, installStub, launchOrphanedRoot, markerFreeEnv, waitForRoles } from './cast.js';
import { DEMO_IMAGE, ensureDemoImage, mainPidOf, previewDockerStopAll } from './container-demo.js';
import { identityOf, observeContext, waitGone } from './drive.js';
import { agentOutcomeFacts } from './drive-outcome.js';
import { type CastMember, describePreview, previewPkill } from './pkill-preview.js';

const WATCH_TICK_MS = 200;
const ATTRIBUTION_WAIT_MS = 30_000;
const STOP_GRACE_S = 1;

export interface ContainerFacts {
  readonly doomed: { readonly id: string; readonly name: string };
  readonly live: { readonly id: string; readonly name: string };
  readonly mine: { readonly id: string; readonly name: string };
  /** The session's leftovers as the engine judged them after its root died. */
  readonly leftovers: readonly SessionContainer[];
  readonly cleaned: readonly CleanedContainer[] | null;
  /** Container state after the clean-up (Treewarden mode), by id. */
  readonly statesAfter: Readonly<Record<string, string>>;
}

const recorded = new WeakMap<ScenarioContext, ContainerFacts>();

export function containerFactsOf(ctx: ScenarioContext): ContainerFacts {
  const facts = recorded.get(ctx);
  if (facts === undefined) throw new Error('the container driver recorded no facts');
  return facts;
}

function names(ctx: ScenarioContext) {
  const tag = ctx.runId
    .replace(/[^a-zA-Z0-9_.-]/g, '')
    .slice(-12)
    .toLowerCase();
  return { doomed: `tw-demo-${tag}-doomed-db`, live: `tw-demo-${tag}-live-db`, mine: `tw-demo-${tag}-my-own-db` };
}

async function startLead(ctx: ScenarioContext, tools: DriverTools, name: string, container: string, socket: string) {
  const { rules } = observeContext(ctx);
  const { dir, stub } = installStub(ctx, name, 'container-lead.mjs');
  const reportFile = join(ctx.dir, `${name}-report.jsonl`);
  const env = {
    ...markerFreeEnv(ctx, rules, reportFile),
    LEAD_CONTAINER_NAME: container,
    LEAD_CONTAINER_IMAGE: DEMO_IMAGE,
    DOCKER_HOST: `unix://${socket}`,
  };
  const rootPid = await launchOrphanedRoot(ctx, stub, dir, env);
  const reports = await waitForRoles(reportFile, { 'claude-root': 1 }, tools, `the session "${name}"`);
  const session: FakeSession = { name, dir, rootPid, reports };
  return { session, id: String(reports[0]?.container ?? '') };
}

export async function driveContainerLeftover(ctx: ScenarioContext, tools: DriverTools): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const socket = findEngineSocket();
  if (socket === null) throw new Error('no Docker Engine socket here');
  await ensureDemoImage(socket);
  const context = observeContext(ctx);
  const attributed = new Map<string, string>();
  let connected = false;
  const watcher = createAgentWatcher({
    ...context,
    engineSocket: socket,
    fullScanIntervalMs: WATCH_TICK_MS,
    onEngineConnected: () => {
      connected = true;
    },
    onContainerAttributed: (id, sessionId) => attributed.set(id, sessionId),
  });
  const ticker = setInterval(() => watcher.tick(), WATCH_TICK_MS);
  const made: string[] = [];
  const n = names(ctx);
  try {
    watcher.tick();
    await pollUntil(() => connected, { deadlineMs: ATTRIBUTION_WAIT_MS, intervalMs: 50, signal: tools.signal });
    tools.step(`watcher follows the engine's event stream at ${socket}`);
    const doomed = await startLead(ctx, tools, 'doomed-project', n.doomed, socket);
    made.push(doomed.id);
    const live = await startLead(ctx, tools, 'live-project', n.live, socket);
    made.push(live.id);
    const env = { ...process.env, DOCKER_HOST: `unix://${socket}` };
    const mineId = execFileSync(
      'docker',
      ['run', '-d', '--network', 'none', '--name', n.mine, DEMO_IMAGE, 'sleep', '600'],
      {
        env,
        encoding: 'utf8',
      },
    ).trim();
    made.push(mineId);
    tools.step(
      `sessions up: doomed root ${doomed.session.rootPid} ran ${n.doomed}, live root ${live.session.rootPid} ran ${n.live}`,
    );
    tools.step(`a person's own container ${n.mine}, started by no agent`);
    const both = await pollUntil(() => attributed.has(doomed.id) && attributed.has(live.id), {
      deadlineMs: ATTRIBUTION_WAIT_MS,
      intervalMs: 50,
      signal: tools.signal,
    });
    if (both === null) throw new Error('the watcher did not attribute both sessions’ containers in time');
    tools.step(
      `engine attributed ${n.doomed} to ${attributed.get(doomed.id)} and ${n.live} to ${attributed.get(live.id)} (their creating CLI was a member)`,
    );

    const root = identityOf(doomed.session.rootPid);
    tools.step(
      `SIGKILL the agent root ${doomed.session.rootPid}: killing the CLI's session does not stop its container`,
    );
    if (root !== null) process.kill(root.pid, 'SIGKILL');
    await waitGone(doomed.session.rootPid, 'the agent root', tools);
    watcher.tick(); // The session's end is recorded.
    const sessions = readSessions(context.stateRoot).sessions;
    const doomedId = attributed.get(doomed.id) as string;
    const leftovers = containerLeftovers(
      await readSessionContainers(context.stateRoot, sessions, socket),
      sessions.filter((s) => s.id === doomedId),
    );
    for (const c of leftovers)
      tools.step(
        `leftover container ${c.name} (${c.image}) ${c.id.slice(0, 12)}: ${c.strength}, ${c.evidence.map((e) => e.detail).join('; ')}`,
      );

    // The cast, each container by its main process (what pkill would see of it).
    const containerOf = new Map<number, string>();
    const cast: CastMember[] = [];
    for (const [id, role, name] of [
      [doomed.id, 'leaked', n.doomed],
      [live.id, 'live-session-member', n.live],
      [mineId, 'unrelated', n.mine],
    ] as const) {
      const pid = await mainPidOf(socket, id);
      const entry = pid === null ? null : readProcEntry(pid);
      if (pid === null || entry === null) continue;
      containerOf.set(pid, id);
      cast.push({ pid, startTime: entry.startTime, role, command: `container ${name}: sleep 600` });
    }
    const base = {
      doomed: { id: doomed.id, name: n.doomed },
      live: { id: live.id, name: n.live },
      mine: { id: mineId, name: n.mine },
      leftovers,
    };

    if (ctx.mode === 'naive') {
      const previews = [
        await previewDockerStopAll(socket, cast, containerOf),
        previewPkill('docker', readProcTable(), cast, new Set()),
      ];
      for (const preview of previews) tools.step(`naive (computed, never run): ${describePreview(preview)}`);
      recorded.set(ctx, { ...base, cleaned: null, statesAfter: {} });
      return agentOutcomeFacts(startedAt, null, cast, previews);
    }

    tools.step(`engine clean-up (as treewarden orphans --clean): ${leftovers.length} leftover container(s)`);
    const cleaned = await cleanContainerLeftovers(leftovers, {
      socketPath: socket,
      includeWeak: false,
      graceSeconds: STOP_GRACE_S,
    });
    for (const c of cleaned) tools.step(`  ${c.name}: ${c.result} (${c.detail})`);
    const statesAfter: Record<string, string> = {};
    for (const id of made) statesAfter[id] = (await inspectContainer(socket, id))?.state ?? 'gone';
    recorded.set(ctx, { ...base, cleaned, statesAfter });
    tools.step('scenario teardown: ending the live session it started');
    await sweepScenario(ctx.runId, ctx.dir);
    const ok = cleaned.length > 0 && cleaned.every((c) => c.result === 'stopped' || c.result === 'killed');
    return agentOutcomeFacts(startedAt, ok ? 'ok' : 'kill_failed', cast, undefined);
  } finally {
    clearInterval(ticker);
    watcher.close();
    tools.step('scenario teardown: removing the demo containers it created (by id)');
    for (const id of made)
      if (id !== '') await engineRequest(socket, 'DELETE', `/containers/${id}?force=1`).catch(() => undefined);
  }
}
