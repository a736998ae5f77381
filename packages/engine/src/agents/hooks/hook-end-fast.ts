/**
 * The engine's `@treewarden/engine/hook-end` entry: SessionEnd's fast path. Agents kill SessionEnd
 * hooks early (Claude Code before 2.1.74 after 1.5 s, Codex after 3 s), and on a loaded machine a
 * Node start-up plus zod alone can take that long. So the hook only reads its ancestor chain (a
 * few /proc files: the shell between it and the agent is gone once it returns) and starts the
 * reaper with the event text as it came; the reaper validates the event (zod) and does the rest.
 * Nothing imported from here loads zod or validates rules.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { engineDistFile } from '../../runtime/engine-files.js';
import { nodeCommand } from '../../runtime/node-command.js';
import { statePaths } from '../../state/state-dir.js';
import builtin from '../rules/builtin-rules.json' with { type: 'json' };
import { MAX_STORED_ARG_CHARS, MAX_STORED_ARGS } from '../sessions/store-limits.js';
import { readChain } from './hook-ancestry.js';
import { writeHandoff } from './reaper-handoff.js';

export { hookAgentNames, hookAgentOf, MAX_HOOK_INPUT_BYTES } from './hook-agents.js';

/** The bundled entry (rolldown.config.mjs), whether this module runs from src, dist or a bundle. */
export const REAPER_ENTRY = engineDistFile('bundle/reaper.js');

/** The event's name without validating anything else (the reaper validates), or null. */
export function hookEventName(text: string): string | null {
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json !== 'object' || json === null) return null;
    const name = (json as Record<string, unknown>).hook_event_name;
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/** The agents' marker variables (our own compiled-in rules file), which the reaper must not carry. */
function markerNames(): string[] {
  return builtin.agents.flatMap((agent) => agent.markers.map((marker) => marker.name));
}

function reaperEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of markerNames()) delete env[name];
  return env;
}

/** The config goes through a private file (reaper-handoff.ts): never event content in argv. */
export function spawnDetachedReaper(stateRoot: string, config: unknown): number {
  if (!existsSync(REAPER_ENTRY))
    throw new Error(`reaper entry ${REAPER_ENTRY} is missing: build first (npm run build)`);
  const node = nodeCommand();
  const handoff = writeHandoff(stateRoot, config);
  const child = spawn(node.command, [REAPER_ENTRY, handoff], {
    detached: true,
    stdio: 'ignore',
    cwd: '/',
    env: { ...reaperEnvironment(), ...node.env },
  });
  child.unref();
  if (child.pid === undefined) {
    rmSync(handoff, { force: true });
    throw new Error('the reaper did not start');
  }
  return child.pid;
}

/** Hands a SessionEnd event to a detached reaper; returns its pid. */
export function handOffSessionEnd(agent: string, eventText: string, startPid: number = process.ppid): number {
  const paths = statePaths();
  const chain = readChain(startPid).map((entry) => ({
    pid: entry.pid,
    startTime: entry.startTime,
    ppid: entry.ppid,
    args: entry.args.slice(0, MAX_STORED_ARGS).map((arg) => arg.slice(0, MAX_STORED_ARG_CHARS)),
    cwd: entry.cwd,
    startedAtMs: entry.startedAtMs,
  }));
  return spawnDetachedReaper(paths.root, {
    kind: 'session-end',
    agent,
    event: eventText,
    chain,
    stateRoot: paths.root,
    ledgerFile: paths.ledgerFile,
    endedAtMs: Date.now(),
  });
}
