/**
 * Starting the SessionEnd reaper from the hook: detached (its own session and group), stdio
 * ignored (no inherited pipe keeps the agent's hook output open), cwd `/`, and an environment
 * without any agent marker, so the reaper never looks like a leftover of any session itself.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../../runtime/node-command.js';
import type { AgentRules } from '../rules.js';
import type { ReaperConfig } from './run-reaper.js';

/** Resolved from the package root, so it works whether the engine is loaded from src or dist. */
export const REAPER_ENTRY = fileURLToPath(new URL('../../../dist/agents/hooks/reaper-main.js', import.meta.url));

function cleanEnvironment(rules: AgentRules, extra: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of rules.markersByName.keys()) delete env[name];
  if (extra !== null) delete env[extra];
  return env;
}

/** The reaper's pid; throws when it could not be started (the hook reports that on stderr). */
export function spawnReaper(config: ReaperConfig, rules: AgentRules, envKey: string | null): number {
  if (!existsSync(REAPER_ENTRY)) throw new Error(`reaper entry ${REAPER_ENTRY} is missing: build the engine first`);
  const node = nodeCommand();
  const child = spawn(node.command, [REAPER_ENTRY, JSON.stringify(config)], {
    detached: true,
    stdio: 'ignore',
    cwd: '/',
    env: { ...cleanEnvironment(rules, envKey), ...node.env },
  });
  child.unref();
  if (child.pid === undefined) throw new Error('the reaper did not start');
  return child.pid;
}
