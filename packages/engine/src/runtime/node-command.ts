/**
 * How this process starts a JavaScript file as Node. Under Electron, `process.execPath` is the app
 * binary: spawned without ELECTRON_RUN_AS_NODE=1 it starts a second app (which the single-instance
 * lock quits at once, with status 0) instead of running the script. Every spawn of one of our own
 * scripts (guardian, scenario workers, fixtures) goes through here; user runs never do, so they
 * never inherit the variable.
 */
export const RUN_AS_NODE_ENV = 'ELECTRON_RUN_AS_NODE';

export interface NodeRuntime {
  /** The binary that runs this process: node, or the Electron app binary. */
  readonly execPath: string;
  /** True inside Electron: its main process, or a child of it already running as Node. */
  readonly electron: boolean;
}

export interface NodeCommand {
  readonly command: string;
  /** Variables to add to the child's environment (empty under plain Node). */
  readonly env: Readonly<Record<string, string>>;
}

export function currentRuntime(): NodeRuntime {
  // A process started with the variable is Electron running as Node (old releases do not put
  // `electron` in process.versions there); under plain Node passing it on is harmless.
  const electron = process.versions.electron !== undefined || process.env[RUN_AS_NODE_ENV] !== undefined;
  return { execPath: process.execPath, electron };
}

export function nodeCommand(runtime: NodeRuntime = currentRuntime()): NodeCommand {
  return { command: runtime.execPath, env: runtime.electron ? { [RUN_AS_NODE_ENV]: '1' } : {} };
}
