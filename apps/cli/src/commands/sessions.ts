/**
 * `treewarden sessions [--json]`: agent sessions started the usual way (claude, codex, …), live and
 * recently ended, each with its members and roles, and the members an ended session leaked.
 * Observing also remembers what it saw in the state dir, so later reports keep the ancestry.
 * Live sessions carry their pile-up alerts (`alerts`, one `ALERT` line each without --json).
 */
import { parseArgs } from 'node:util';
import {
  alertsBySession,
  attachContainers,
  findEngineSocket,
  observeAgentsOnce,
  readFdUsage,
  readSessionContainers,
  type SessionContainer,
  sessionRows,
} from '@treewarden/engine';
import type { AgentSessionRow } from '@treewarden/protocol';
import { writeOut } from '../args.js';
import { EXIT_OK } from '../exit-codes.js';
import { terminalArgs, terminalText, writeText } from '../terminal-text.js';
import { agentContext } from './agent-context.js';
import type { CliCommand } from './command.js';
import { alertConfig, alertLine, judgeObservation } from './session-alerts.js';

const USAGE = 'treewarden sessions [--json]';
const ARGS_WIDTH = 70;

function formatSession(row: AgentSessionRow): string {
  const state = row.state === 'live' ? 'live' : `ended ${row.endedAt}`;
  const head = `${terminalText(row.agent)} ${terminalText(row.id)} (${state}) root ${row.root.pid} in ${terminalText(row.cwd ?? '?')}`;
  const lines = row.members.flatMap((member) => {
    const leaked = row.leaked.includes(member.pid) ? ' LEAKED' : '';
    const fds = member.fds === undefined ? '' : ` [${member.fds.open} fds, ${member.fds.inotifyWatches} watches]`;
    const line = `  ${String(member.pid).padStart(7)}  ${member.role.padEnd(15)} ${terminalArgs(member.args).slice(0, ARGS_WIDTH)}${fds}${leaked}`;
    if (member.role !== 'browser') return [line];
    const tree = member.tree ?? [];
    const profile = member.profile === undefined ? 'no profile dir' : `profile ${terminalText(member.profile)}`;
    return [line, `           ${profile}; ${tree.length} more process${tree.length === 1 ? '' : 'es'} in its tree`];
  });
  const containers = (row.containers ?? []).map(
    (c) =>
      `  container ${terminalText(c.name)} ${c.id.slice(0, 12)} (${terminalText(c.image)}) ${c.state} ${c.strength}: ${terminalText(c.evidence[0]?.detail ?? '')}`,
  );
  return [head, ...lines, ...containers, ...(row.alerts ?? []).map(alertLine)].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: { json: { type: 'boolean' } }, strict: true });
  const context = agentContext();
  const config = await alertConfig(context.stateRoot);
  const observation = observeAgentsOnce(context);
  const now = Date.now();
  const alerts = alertsBySession(judgeObservation(observation, config).map((alert) => ({ ...alert, sinceMs: now })));
  // With no engine socket nothing container-related runs; an engine that fails to answer lists none.
  const socket = findEngineSocket();
  const containers =
    socket === null
      ? new Map<string, SessionContainer[]>()
      : await readSessionContainers(context.stateRoot, observation.sessions, socket).catch(
          () => new Map<string, SessionContainer[]>(),
        );
  const sessions = attachContainers(
    sessionRows(observation.sessions, observation.live, observation.leaks, alerts, { fdsOf: readFdUsage }),
    containers,
  );
  const problems = observation.problems.map(({ file, message }) => ({ file, message }));
  if (values.json === true) {
    await writeOut(process.stdout, `${JSON.stringify({ sessions, ...(problems.length > 0 ? { problems } : {}) })}\n`);
  } else {
    const body = sessions.length === 0 ? 'no agent sessions seen' : sessions.map(formatSession).join('\n\n');
    await writeText(process.stdout, `${body}\n`);
    for (const problem of problems)
      await writeText(process.stderr, `treewarden: ${problem.file}: ${problem.message}\n`);
  }
  return EXIT_OK;
}

export const sessionsCommand: CliCommand = {
  summary: 'agent sessions (claude, codex, …) with their members and roles, and what ended ones leaked',
  usage: USAGE,
  main,
};
