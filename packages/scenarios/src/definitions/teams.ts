/**
 * Agent teams: a team lead dies and its hidden tmux server runs on with its teammates. Ended by
 * the engine's team-server attribution and leak clean-up, next to what `pkill -f tmux` and
 * `pkill -f claude-swarm` would hit. Needs tmux (Debian's `tmux`).
 */
import { execFileSync } from 'node:child_process';
import { driveTeamLeftover } from '../agents/drive-team.js';
import { factsOf, leakHoldsCheck, naiveChecks, treewardenChecks } from '../agents/facts.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

function tmuxMissing(): string | null {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'tmux is not installed (apt-get install tmux)';
  }
}

function teamChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  const facts = factsOf(evidence);
  const common = evidence.ctx.mode === 'naive' ? naiveChecks(evidence) : treewardenChecks(facts);
  const server = Number(facts.doomed.reports.find((r) => r.role === 'claude-root')?.server ?? 0);
  const leakedServer = facts.leak.processes.find(({ entry }) => entry.pid === server);
  return [
    {
      name: "the dead lead's team tmux server was judged a leftover",
      ok: leakedServer?.role === 'tmux-server',
      detail: `server ${server}: ${leakedServer?.reasons.join('; ') ?? 'not judged'}`,
    },
    leakHoldsCheck(facts, 'teammate', 'its teammate was judged a leftover with it'),
    ...common,
  ];
}

export const agentTeamTmuxLeftover: ScenarioDefinition = {
  name: 'agent-team-tmux-leftover',
  title: 'An agent-team lead dies; its hidden tmux server keeps the teammates running',
  explanation:
    'A Claude Code team lead runs its teammates (`claude --agent-id NAME@TEAM`) in panes of its own tmux server (`tmux -L claude-swarm-PID`). ' +
    'tmux daemonises the server, so it is not the lead’s child: when the lead is SIGKILLed, the server and its teammates run on under pid 1.',
  naiveFailure:
    "`pkill -f tmux` also ends the live team's server and your own tmux session; `pkill -f claude-swarm` also ends the live team's server.",
  treewardenFix:
    "The engine ties the team server to its session by the socket named after the lead's pid (checked against start times); once the lead is gone and no client is attached, the server and its panes are that session's leftovers and end with the revalidated tree kill. The live team and your own tmux are never judged.",
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: { maxProcesses: 16, maxMs: 50_000 },
  naive: 'in-worker',
  unavailableReason: tmuxMissing,
  drive: driveTeamLeftover,
  check: teamChecks,
};
