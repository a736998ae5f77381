/**
 * Starts the worker in its own session (detached → setsid), with the run and lease cookies in its
 * environment. A launch that fails is a structured result (`missing_binary`, `launch_failure`),
 * never an exception escaping to the caller.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { byteExactShim, decodeArgv } from '../runtime/argv-bytes.js';
import { type BaseEnvironment, environmentWith } from '../runtime/environment.js';
import { cgroupShim, type RunCgroup } from './cgroup.js';
import { LEASE_ID_ENV, RUN_ID_ENV, type RunSpec } from './types.js';

export interface LaunchFailure {
  readonly classification: 'missing_binary' | 'launch_failure';
  readonly error: string;
}

export type LaunchResult =
  | { readonly kind: 'spawned'; readonly child: ChildProcess; readonly pid: number }
  | { readonly kind: 'failed'; readonly failure: Promise<LaunchFailure> };

export interface LaunchCookies {
  readonly runId: string;
  readonly leaseId: string;
}

function stdioFor(output: RunSpec['output']): StdioOptions {
  // Capture never reads stdin: a headless worker must not steal the caller's terminal input.
  if (output === 'inherit') return ['inherit', 'inherit', 'inherit'];
  if (output === 'tee') return ['inherit', 'pipe', 'pipe'];
  return ['ignore', 'pipe', 'pipe'];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Maps a spawn error to an outcome. ENOENT also comes from a missing cwd: that is not a missing binary. */
export function describeLaunchError(spec: RunSpec, error: NodeJS.ErrnoException): LaunchFailure {
  const code = error.code ?? 'UNKNOWN';
  if (code === 'ENOENT' && (spec.cwd === undefined || isDirectory(spec.cwd))) {
    return {
      classification: 'missing_binary',
      error: `missing binary: ${spec.command} was not found (ENOENT); check the path or PATH`,
    };
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return {
      classification: 'launch_failure',
      error: `launch failure: ${spec.command} cannot be executed (${code}); is it an executable file (chmod +x)?`,
    };
  }
  return { classification: 'launch_failure', error: `launch failure: ${spec.command}: ${error.message}` };
}

/**
 * Where spawn would find `command` (PATH of the worker's env), so a shim's exec cannot hide a
 * miss. As bytes: a command that is not UTF-8 is found by its real name.
 */
function findExecutable(command: Buffer, env: NodeJS.ProcessEnv, cwd: string): Buffer | null {
  const under = (dir: string) => Buffer.concat([Buffer.from(`${dir}/`), command]);
  const candidates = command.includes('/')
    ? [command[0] === 0x2f ? command : under(cwd)]
    : (env.PATH ?? '').split(delimiter).map((dir) => under(dir === '' ? cwd : resolve(cwd, dir)));
  return candidates.find((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true) ?? null;
}

/**
 * Behind a shim (cgroup, byte-exact argv) a missing or non-executable worker would be a shell's
 * exit 127/126: check first, so the outcome stays `missing_binary` / `launch_failure` as without.
 */
function preflightShimmed(spec: RunSpec, command: Buffer, env: NodeJS.ProcessEnv): LaunchFailure | null {
  const found = findExecutable(command, env, spec.cwd ?? process.cwd());
  const code = found === null ? 'ENOENT' : isExecutable(found) ? null : 'EACCES';
  if (code === null) return null;
  return describeLaunchError(spec, Object.assign(new Error(code), { code }));
}

function isExecutable(path: Buffer): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** With `cgroup`, the worker is started through the shim that enters it first (cgroup.ts). */
export function launchWorker(
  spec: RunSpec,
  cookies: LaunchCookies,
  cgroup?: RunCgroup,
  baseEnvironment: BaseEnvironment = process.env,
): LaunchResult {
  if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
    const failure: LaunchFailure = {
      classification: 'launch_failure',
      error: `launch failure: cwd ${spec.cwd} is not a directory`,
    };
    return { kind: 'failed', failure: Promise.resolve(failure) };
  }
  // One pass over the base (a guardian's is its holder's whole environment), the cookies first.
  const env = environmentWith(baseEnvironment, spec.env, {
    [RUN_ID_ENV]: cookies.runId,
    [LEASE_ID_ENV]: cookies.leaseId,
  });
  // Bytes that are not UTF-8 cannot be passed as spawn's strings: the shim rebuilds them (argv-bytes.ts).
  const bytes = spec.argvBase64 === undefined ? null : decodeArgv(spec.argvBase64);
  if (cgroup !== undefined || bytes !== null) {
    const preflight = preflightShimmed(spec, bytes?.[0] ?? Buffer.from(spec.command), env);
    if (preflight !== null) return { kind: 'failed', failure: Promise.resolve(preflight) };
  }
  const [program, programArgs] = bytes === null ? [spec.command, [...(spec.args ?? [])]] : byteExactShim(bytes);
  const [command, args] = cgroup === undefined ? [program, programArgs] : cgroupShim(cgroup, program, programArgs);
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: spec.cwd,
      env,
      detached: true,
      stdio: stdioFor(spec.output),
    });
  } catch (error) {
    // Invalid arguments (e.g. a NUL byte) throw synchronously instead of emitting 'error'.
    const failure = describeLaunchError(spec, error as NodeJS.ErrnoException);
    return { kind: 'failed', failure: Promise.resolve(failure) };
  }
  if (child.pid === undefined) {
    // libuv already knows the exec failed; Node reports it through 'error' on the next tick.
    const failure = new Promise<LaunchFailure>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => resolve(describeLaunchError(spec, error)));
    });
    return { kind: 'failed', failure };
  }
  return { kind: 'spawned', child, pid: child.pid };
}
