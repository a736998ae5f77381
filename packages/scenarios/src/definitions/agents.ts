/**
 * Agent leaks: what coding agents leave behind when they die, ended by the engine's agent
 * recognition, leak judgement and clean-up, next to what the `pkill -f` users post would hit.
 * Each starts a doomed fake Claude session, a second live one and an unrelated marker-less process.
 */
import { connect } from 'node:net';
import { pollUntil } from '@treewarden/engine';
import type { FakeSession } from '../agents/cast.js';
import { type AgentLeakPlan, driveAgentLeak, identityOf, waitGone } from '../agents/drive.js';
import { factsOf, leakHoldsCheck, naiveChecks, treewardenChecks } from '../agents/facts.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

/** Two fake sessions (7 + subagents processes each), the unrelated process and its shell. */
const AGENT_BOUNDS = { maxProcesses: 26, maxMs: 50_000 } as const;
const PILEUP_SUBAGENTS = 4;
/** Bound on a loopback connect to the leaked dev server's port. */
const PORT_PROBE_MS = 2000;
/**
 * A killed Node server's leader thread shows as a zombie while its other threads still exit, and
 * the socket closes with the last of them: the port is given this long to be freed.
 */
const PORT_FREE_WAIT_MS = 5000;
const PORT_POLL_MS = 100;

function definitionChecks(extra: (evidence: ScenarioEvidence) => ScenarioCheck[]) {
  return (evidence: ScenarioEvidence): ScenarioCheck[] => {
    const facts = factsOf(evidence);
    const common = evidence.ctx.mode === 'naive' ? naiveChecks(evidence) : treewardenChecks(facts);
    return [...extra(evidence), ...facts.probes, ...common];
  };
}

function signalOwn(pid: number, startTime: string, signal: NodeJS.Signals, group = false): void {
  // Only the identity the scenario started: a recycled pid is left alone. The roots run in sessions
  // of their own (setsid), and only a session's own processes can join its groups, so a group
  // signal reaches the root's descendants and nobody else.
  if (identityOf(pid)?.startTime !== startTime) return;
  process.kill(group ? -pid : pid, signal);
}

function rootIdentity(pid: number): string {
  const identity = identityOf(pid);
  if (identity === null) throw new Error(`the fake Claude root ${pid} is already gone`);
  return identity.startTime;
}

const wrapperPlan: AgentLeakPlan = {
  subagents: 1,
  unrelatedLabel: 'my-mcp-inspector',
  pkillPatterns: ['mcp', 'npx'],
  async end(doomed, tools) {
    const wrapper = doomed.reports.find((report) => report.role === 'npx-wrapper')?.pid ?? 0;
    const wrapperStart = rootIdentity(wrapper);
    tools.step(`SIGKILL the agent root ${doomed.rootPid} (OOM killer, kill -9, a crashed IDE)`);
    signalOwn(doomed.rootPid, rootIdentity(doomed.rootPid), 'SIGKILL');
    await waitGone(doomed.rootPid, 'the agent root', tools);
    tools.step(`the npx-like wrapper ${wrapper} exits, as npm exec does once its agent is gone; its server lives on`);
    signalOwn(wrapper, wrapperStart, 'SIGTERM');
    await waitGone(wrapper, 'the npx-like wrapper', tools);
  },
};

export const agentWrapperLeak: ScenarioDefinition = {
  name: 'agent-wrapper-leak',
  title: 'An agent is killed; its MCP server outlives the npx wrapper',
  explanation:
    'A Claude Code session runs a stdio MCP server through `sh -c` and an npx-like wrapper, a dev server and a subagent. ' +
    'The agent is SIGKILLed; the wrapper exits, but the server it started lives on under pid 1, with everything else the session spawned.',
  naiveFailure:
    '`pkill -f mcp` or `pkill -f npx`: the patterns also hit the MCP server and wrapper of a second, live session and an unrelated MCP inspector, and miss the leaked dev server and subagent.',
  treewardenFix:
    "The engine remembered the session's members by identity while it lived; once its root is gone it judges exactly the survivors leaked, with evidence, and ends them with the revalidated tree kill. The live session and the unrelated process are never judged.",
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: AGENT_BOUNDS,
  naive: 'in-worker',
  drive: (ctx, tools) => driveAgentLeak(ctx, tools, wrapperPlan),
  check: definitionChecks((evidence) => {
    const facts = factsOf(evidence);
    const wrapper = facts.doomed.reports.find((report) => report.role === 'npx-wrapper')?.pid;
    const server = facts.leak.processes.find(
      ({ entry }) => entry.pid === facts.doomed.reports.find((r) => r.role === 'mcp-server')?.pid,
    );
    const orphaned = server?.reasons.some((reason) => reason.startsWith('reparented')) ?? false;
    return [
      leakHoldsCheck(facts, 'mcp-server', 'the MCP server was judged leaked'),
      {
        name: 'the MCP server outlived its wrapper',
        ok: orphaned && !facts.leak.processes.some(({ entry }) => entry.pid === wrapper),
        detail: `server ${server?.entry.pid ?? '?'}: ${server?.reasons.join('; ') ?? 'not leaked'}; wrapper ${wrapper} gone`,
      },
    ];
  }),
};

function devServerPort(doomed: FakeSession): number | null {
  const port = doomed.reports.find((report) => report.role === 'dev-server')?.port;
  return typeof port === 'number' ? port : null;
}

function probePort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(PORT_PROBE_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const terminalPlan: AgentLeakPlan = {
  subagents: 1,
  unrelatedLabel: 'sibling-project-dev-server',
  pkillPatterns: ['dev-server', 'node'],
  async end(doomed, tools) {
    tools.step(`close the terminal: SIGHUP to the agent's job, process group ${doomed.rootPid}`);
    signalOwn(doomed.rootPid, rootIdentity(doomed.rootPid), 'SIGHUP', true);
    await waitGone(doomed.rootPid, 'the agent root', tools);
    for (const role of ['npx-wrapper', 'mcp-server', 'subagent']) {
      for (const report of doomed.reports.filter((r) => r.role === role))
        await waitGone(report.pid, `the hung-up ${role}`, tools);
    }
  },
  async probeLeak(doomed) {
    const port = devServerPort(doomed);
    const open = port !== null && (await probePort(port));
    return {
      name: 'the leaked dev server still holds its port after the hang-up',
      ok: open,
      detail: `127.0.0.1:${port ?? '?'} ${open ? 'answers' : 'does not answer'}`,
    };
  },
  async probeCleaned(doomed) {
    const port = devServerPort(doomed);
    const freed =
      port === null
        ? null
        : await pollUntil(async () => !(await probePort(port)), {
            deadlineMs: PORT_FREE_WAIT_MS,
            intervalMs: PORT_POLL_MS,
          });
    const open = freed === null;
    return {
      name: 'the port is free after the clean-up',
      ok: port !== null && !open,
      detail: `127.0.0.1:${port ?? '?'} ${open ? 'STILL answers' : 'refuses connections'}`,
    };
  },
};

export const agentTerminalClosed: ScenarioDefinition = {
  name: 'agent-terminal-closed',
  title: "A terminal is closed under an agent; the Bash tool's dev server keeps its port",
  explanation:
    "Closing the terminal sends SIGHUP to the agent's job: the agent, its MCP servers and its subagent die. " +
    'The dev server a Bash-tool shell backgrounded runs in its own session, so the hang-up never reaches it: it keeps listening on its port.',
  naiveFailure:
    "`pkill -f dev-server` also ends the live session's dev server and a sibling project's; `pkill -f node` would end every Node process on the machine, this demo included.",
  treewardenFix:
    'The shell and dev server were remembered as members of the session (the dev server by its listening socket); after the hang-up they are judged leaked with their evidence (no controlling terminal, dead group leader) and ended; the port is free again.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: AGENT_BOUNDS,
  naive: 'in-worker',
  drive: (ctx, tools) => driveAgentLeak(ctx, tools, terminalPlan),
  check: definitionChecks((evidence) => {
    const facts = factsOf(evidence);
    const devServer = facts.doomed.reports.find((report) => report.role === 'dev-server')?.pid;
    const leaked = facts.leak.processes.find(({ entry }) => entry.pid === devServer);
    const others = facts.leak.processes.filter(({ role }) => role !== 'dev-server' && role !== 'shell');
    return [
      {
        name: 'only the dev server and its shell survived the hang-up',
        ok: leaked?.role === 'dev-server' && others.length === 0,
        detail: `leaked: ${facts.leak.processes.map(({ entry, role }) => `${entry.pid} ${role}`).join(', ')}`,
      },
    ];
  }),
};

const pileupPlan: AgentLeakPlan = {
  subagents: PILEUP_SUBAGENTS,
  unrelatedLabel: 'claude-usage-dashboard',
  pkillPatterns: ['claude', 'output-format stream-json'],
  async end(doomed, tools) {
    tools.step(`the agent root ${doomed.rootPid} exits normally, without ending its ${PILEUP_SUBAGENTS} subagents`);
    signalOwn(doomed.rootPid, rootIdentity(doomed.rootPid), 'SIGUSR2');
    await waitGone(doomed.rootPid, 'the agent root', tools);
  },
};

export const agentSubagentPileup: ScenarioDefinition = {
  name: 'agent-subagent-pileup',
  title: 'Subagents pile up after their agent exits',
  explanation:
    `A Claude Code session starts ${PILEUP_SUBAGENTS} subagents (\`claude -p … --output-format stream-json --resume …\`) and exits normally. ` +
    'Nobody ends the subagents: they pile up under pid 1 with the MCP server and the dev server, session after session.',
  naiveFailure:
    '`pkill -f claude` ends the leaked subagents, but also the live session you are working in (its root and subagent) and anything else named claude; it misses the leaked MCP and dev servers.',
  treewardenFix:
    'Every subagent was remembered as a member of the ended session; the engine ends exactly those survivors and leaves the live session, which it recognises by its live root, alone.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: AGENT_BOUNDS,
  naive: 'in-worker',
  drive: (ctx, tools) => driveAgentLeak(ctx, tools, pileupPlan),
  check: definitionChecks((evidence) => {
    const facts = factsOf(evidence);
    const subagents = facts.leak.processes.filter(({ role }) => role === 'subagent').length;
    return [
      leakHoldsCheck(facts, 'subagent', 'every subagent was judged leaked'),
      {
        name: `${PILEUP_SUBAGENTS} subagents piled up`,
        ok: subagents === PILEUP_SUBAGENTS,
        detail: `${subagents} leaked with the subagent role`,
      },
    ];
  }),
};
