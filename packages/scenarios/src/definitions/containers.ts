/**
 * A container left by a session: an agent's `docker run -d` database outlives the agent, because
 * killing the CLI's process tree never reaches a container (its processes are containerd-shim's).
 * Stopped by the engine's container attribution and clean-up, next to what
 * `docker ps -q | xargs docker stop` and `pkill -f docker` would hit. Needs a Docker Engine.
 */
import { engineUnavailable } from '../agents/container-demo.js';
import { containerFactsOf, driveContainerLeftover } from '../agents/drive-container.js';
import { naiveChecks } from '../agents/facts.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

function containerChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  const facts = containerFactsOf(evidence.ctx);
  const judged = facts.leftovers.map((c) => c.id);
  const exactly = judged.length === 1 && judged[0] === facts.doomed.id;
  const checks: ScenarioCheck[] = [
    {
      name: "only the dead session's container was judged a leftover",
      ok: exactly && facts.leftovers[0]?.strength === 'strong',
      detail: `leftovers: ${facts.leftovers.map((c) => `${c.name} (${c.strength})`).join(', ') || 'none'}`,
    },
  ];
  if (evidence.ctx.mode === 'naive') return [...checks, ...naiveChecks(evidence)];
  const state = (id: string) => facts.statesAfter[id] ?? '?';
  return [
    ...checks,
    {
      name: 'the engine stopped the leftover container through its API',
      ok: state(facts.doomed.id) === 'exited',
      detail: `${facts.doomed.name}: ${facts.cleaned?.map((c) => c.result).join(', ') ?? 'not cleaned'}, now ${state(facts.doomed.id)}`,
    },
    {
      name: "the live session's container and your own were left running",
      ok: state(facts.live.id) === 'running' && state(facts.mine.id) === 'running',
      detail: `${facts.live.name} ${state(facts.live.id)}, ${facts.mine.name} ${state(facts.mine.id)}`,
    },
  ];
}

export const containerLeftBySession: ScenarioDefinition = {
  name: 'container-left-by-session',
  title: 'An agent is killed; the database container it started keeps running',
  explanation:
    "A Claude Code session's Bash tool runs `docker run -d … postgres`-style: the CLI exits at once and the container runs under containerd-shim, outside the session's process tree. " +
    'The agent is SIGKILLed; nothing stops its container.',
  naiveFailure:
    "`docker ps -q | xargs docker stop` also stops the live session's container and your own; `pkill -f docker` misses the container altogether (its process is `sleep`, not docker) and would hit dockerd and containerd-shim instead.",
  treewardenFix:
    "The watcher follows the engine's event stream and attributes each container to the session whose member CLI created it; once the session ended, its running container is a leftover, stopped through the engine API after re-checking its id and creation time. Never removed, volumes untouched.",
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: { maxProcesses: 8, maxMs: 60_000 },
  naive: 'in-worker',
  unavailableReason: engineUnavailable,
  drive: driveContainerLeftover,
  check: containerChecks,
};
