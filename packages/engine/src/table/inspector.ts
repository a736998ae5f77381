/**
 * A bounded inspector: runs a listing command (`ps`, PowerShell) and yields its whole stdout, or
 * null ("no table") when it fails, passes its output cap or its time bound. Past either bound it
 * is SIGKILLed at once; a partial listing is never returned, because a table missing processes
 * would read as "those processes exited" to whoever decides what to signal.
 */
import { spawn } from 'node:child_process';

/** Output cap of the `ps` inspector: past it the inspector is killed and yields no table, never a partial one. */
export const MAX_INSPECTOR_OUTPUT_BYTES = 1024 * 1024;
/** Time bound of one inspector run; `ps -ax` takes well under a second even with 10,000 processes. */
export const INSPECTOR_TIMEOUT_MS = 5_000;

/** The slice of a ChildProcess the inspector needs, so tests can drive it with a fake. */
export interface InspectorProcess {
  readonly stdout: NodeJS.ReadableStream | null;
  kill(signal: NodeJS.Signals): boolean;
  once(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
}

export type SpawnInspector = () => InspectorProcess;

export interface BoundedInspectorOptions {
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  /**
   * Exit codes that mean "nothing matched" when stdout is empty (`lsof` exits 1 when no file
   * matches); such a run yields "". With any output, only exit 0 counts, so a partial listing
   * is still never returned.
   */
  readonly nothingFoundExitCodes?: readonly number[];
}

/** Spawns `file args` with stdin and stderr ignored and `LC_ALL=C`, so the output parses the same everywhere. */
export function spawnCommand(file: string, args: readonly string[]): SpawnInspector {
  return () =>
    spawn(file, args, {
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
    });
}

function checkBound(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`runBoundedInspector: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

/** Resolves with the inspector's complete stdout (UTF-8, invalid bytes replaced) or null. */
export function runBoundedInspector(
  spawnInspector: SpawnInspector,
  options: BoundedInspectorOptions = {},
): Promise<string | null> {
  const maxBytes = checkBound('maxBytes', options.maxBytes ?? MAX_INSPECTOR_OUTPUT_BYTES);
  const timeoutMs = checkBound('timeoutMs', options.timeoutMs ?? INSPECTOR_TIMEOUT_MS);
  const nothingFound = options.nothingFoundExitCodes ?? [];
  return new Promise((resolve) => {
    let inspector: InspectorProcess;
    try {
      inspector = spawnInspector();
    } catch {
      resolve(null);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (output: string | null, kill: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (kill) inspector.kill('SIGKILL');
      resolve(output);
    };
    const timer = setTimeout(() => finish(null, true), timeoutMs);
    inspector.once('error', () => finish(null, true));
    inspector.stdout?.on('data', (chunk: Buffer | string) => {
      if (settled) return;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) return finish(null, true);
      chunks.push(buffer);
    });
    // 'close' fires after stdout ended, so every chunk is in; anything but a clean exit is no table.
    inspector.once('close', (code, signal) => {
      if (signal === null && size === 0 && code !== null && nothingFound.includes(code)) return finish('', false);
      finish(code === 0 && signal === null ? Buffer.concat(chunks).toString('utf8') : null, false);
    });
  });
}
