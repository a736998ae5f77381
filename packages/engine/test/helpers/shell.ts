/** A tracked test shell that reports pids on its stdout, for the /proc readers' tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type ProcessTracker, pollUntil } from '../../../../test-support/index.js';

/** How long a test shell waits for the lines it prints (sh start-up on a loaded 2-core box). */
export const SHELL_LINES_WAIT_MS = 10_000;

export interface Shell {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The first `count` lines the script prints, as numbers (the pids it reports with `echo $!`), tracked too. */
  readonly pids: (count: number) => Promise<number[]>;
}

/** Runs a constant sh script (arguments in $1…, never interpolated), tracked for cleanup. */
export function startShell(
  tracker: ProcessTracker,
  script: string,
  options: { detached?: boolean; cwd?: string; args?: string[] } = {},
): Shell {
  const child = spawn('/bin/sh', ['-c', script, 'sh', ...(options.args ?? [])], {
    detached: options.detached ?? false,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const pid = tracker.trackChild(child, { detached: options.detached ?? false });
  const lines: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(line));
  const pids = async (count: number) => {
    const found = await pollUntil(() => (lines.length >= count ? lines.slice(0, count).map(Number) : null), {
      deadlineMs: SHELL_LINES_WAIT_MS,
      description: `${count} pid line(s) from sh ${pid}`,
    });
    for (const reported of found) tracker.trackPid(reported);
    return found;
  };
  return { child, pid, pids };
}
