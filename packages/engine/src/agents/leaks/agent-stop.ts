/**
 * The agent's own way to end a session (rule `daemon.stop`: `claude stop ID`), tried before the
 * engine's kill on a leak of that agent. The ids come from the leaked processes' own argv and
 * environment (a pty host's `…/pty/ID.sock`, CLAUDE_JOB_DIR=…/jobs/ID), never from anything the
 * agent answers; the binary is the one on PATH; each call is bounded by the rule's timeout. Its
 * answer decides nothing: the clean-up re-reads the table afterwards and ends whatever is left
 * with the revalidated (pid + start time) kill, so an agent that does nothing, hangs, or is not
 * installed changes what is left to kill, never what may be killed.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { ProcessIdentity } from '../../table/types.js';
import { createMarkerReader, type MarkerVars } from '../read/environ.js';
import type { AgentRules, AgentStopRule } from '../rules/rules.js';
import type { AgentLeak } from './leak-judge.js';

/** Ids passed to the agent's binary: nothing that could read as an option or a path. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** At most this many stop calls per leak (each bounded by the rule's timeout). */
export const MAX_STOPS_PER_LEAK = 8;

export interface AgentStopReport {
  /** The command as run (binary path and arguments). */
  readonly command: readonly string[];
  /** `ok`: it exited 0; `failed`: it exited otherwise; `timeout`: ended after the rule's timeout; `no-binary`. */
  readonly result: 'ok' | 'failed' | 'timeout' | 'no-binary';
  readonly detail?: string;
}

export type RunStop = (
  binary: string,
  args: readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
) => Promise<{ readonly code: number | null; readonly timedOut: boolean; readonly output: string }>;

export interface AgentStopOptions {
  /** PATH to look the binary up on; default the process's. */
  readonly path?: string;
  /** Reads a leaked process's variables among `names` (identity-checked); default /proc. */
  readonly readVars?: (identity: ProcessIdentity, names: ReadonlySet<string>) => MarkerVars | null;
  /** The binary's environment; default the process's (its HOME says whose sessions it stops). */
  readonly env?: NodeJS.ProcessEnv;
  readonly run?: RunStop;
}

/** The ids the rule reads from the leaked processes, in the order found, without repeats. */
export function stopIdsOf(
  leak: AgentLeak,
  stop: AgentStopRule,
  readVars: NonNullable<AgentStopOptions['readVars']>,
): string[] {
  const ids = new Set<string>();
  const names = new Set(stop.ids.flatMap((source) => (source.env === undefined ? [] : [source.env])));
  for (const { entry } of leak.processes) {
    const vars = names.size > 0 ? readVars(entry, names) : null;
    for (const source of stop.ids) {
      const values = source.env === undefined ? entry.args : [vars?.get(source.env) ?? ''];
      for (const value of values) {
        const id = source.pattern.exec(value)?.[1];
        if (id !== undefined && SAFE_ID.test(id)) ids.add(id);
      }
    }
  }
  return [...ids].slice(0, MAX_STOPS_PER_LEAK);
}

/** The executable named `binary` on `path`, or null. */
export function findOnPath(binary: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // A relative PATH entry depends on the cwd: never run from it.
    const candidate = join(dir, binary);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

const runWithTimeout: RunStop = (binary, args, timeoutMs, env) =>
  new Promise((resolve) => {
    execFile(
      binary,
      [...args],
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024, encoding: 'utf8', env },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim().slice(0, 300);
        if (error === null) return resolve({ code: 0, timedOut: false, output });
        const timedOut = (error as { killed?: boolean }).killed === true;
        const code = typeof error.code === 'number' ? error.code : null;
        resolve({ code, timedOut, output: output || error.message.slice(0, 300) });
      },
    );
  });

function defaultReadVars(identity: ProcessIdentity, names: ReadonlySet<string>): MarkerVars | null {
  return createMarkerReader(names)(identity);
}

/** Runs the agent's own stop for each session the leak's processes name; empty when its rule has none. */
export async function stopWithAgent(
  leak: AgentLeak,
  rules: AgentRules,
  options: AgentStopOptions = {},
): Promise<AgentStopReport[]> {
  const stop = rules.agents.find((rule) => rule.id === leak.agent)?.daemon?.stop;
  if (stop === undefined) return [];
  const ids = stopIdsOf(leak, stop, options.readVars ?? defaultReadVars);
  if (ids.length === 0) return [];
  const binary = findOnPath(stop.binary, options.path ?? options.env?.PATH ?? process.env.PATH ?? '');
  if (binary === null)
    return [{ command: [stop.binary], result: 'no-binary', detail: `${stop.binary} is not on PATH` }];
  const run = options.run ?? runWithTimeout;
  const reports: AgentStopReport[] = [];
  for (const id of ids) {
    const args = stop.args.map((arg) => arg.replaceAll('{id}', id));
    const outcome = await run(binary, args, stop.timeoutMs, options.env ?? process.env);
    const result = outcome.timedOut ? 'timeout' : outcome.code === 0 ? 'ok' : 'failed';
    reports.push({
      command: [binary, ...args],
      result,
      ...(outcome.output !== '' ? { detail: outcome.output } : {}),
    });
  }
  return reports;
}
