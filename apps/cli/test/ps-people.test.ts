/**
 * `treewarden ps` for people: on a terminal (a real pty from `script`, its width set by `stty`)
 * every line fits and long arguments end in `…`; `--wide` and piped output keep whole lines; START
 * is the wall-clock start; `--json` rows are the protocol's process node (plus the whole argv).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processNodeSchema } from '@treewarden/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, CLI_RUN_TIMEOUT_MS, collectOutput, runCli } from '../../../test-support/cli-helpers.js';
import { isRunning, pollUntil, startTimeOf, useProcessTracker } from '../../../test-support/index.js';

const COLUMNS = 70;
/** A long, recognisable argv: far wider than any terminal here. */
const LONG_ARGS = Array.from({ length: 40 }, (_, i) => `--flag-${i}=value-${i}`);
const PERL = '/usr/bin/perl';
const SLEEPER_CODE = 'sleep 60';
/** The sleeper's command line up to its flags, as a pattern. */
const SLEEPER = `${PERL} -e sleep 60 --`;

/** `treewarden ps ARGS` on a pty of COLUMNS columns; its lines without the pty's \r. */
async function psOnTerminal(args: readonly string[], track: (pid: number) => void): Promise<string[]> {
  const command = `stty cols ${COLUMNS}; ${process.execPath} ${CLI_MAIN} ps ${args.join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child.pid as number);
  const result = await collectOutput(child, { description: 'ps on a pty', timeoutMs: CLI_RUN_TIMEOUT_MS });
  expect(result.code).toBe(0);
  return result.stdout.replaceAll('\r', '').trimEnd().split('\n');
}

/** /proc's view of when `pid` started, as the engine computes it (boot time + start ticks at 100 Hz). */
function startedAtMs(pid: number): number {
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
  return btime * 1000 + Math.round(Number(startTimeOf(pid)) * 10);
}

describe.skipIf(process.platform !== 'linux')('treewarden ps for people', () => {
  const tracker = useProcessTracker();
  beforeAll(assertBuilt);

  async function startSleeper(): Promise<number> {
    // perl -e CODE ARGS…: one process whose argv is long and known (sleep would refuse the flags).
    const child = spawn(PERL, ['-e', SLEEPER_CODE, '--', ...LONG_ARGS], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = tracker.trackChild(child, { detached: true });
    await pollUntil(() => isRunning(pid), { description: 'the sleeper' });
    return pid;
  }

  it('fits a terminal, cutting long arguments with …; --wide keeps whole lines', async () => {
    const pid = await startSleeper();
    const track = (scriptPid: number) => tracker.trackPid(scriptPid);
    const fitted = await psOnTerminal(['--pid', String(pid)], track);
    expect(fitted).toHaveLength(2);
    for (const line of fitted) expect(Array.from(line).length).toBeLessThanOrEqual(COLUMNS);
    expect(fitted[1]).toMatch(new RegExp(`^ *${pid} .* ${PERL} -e.*…$`));
    expect(Array.from(fitted[1] ?? '').length).toBe(COLUMNS);

    const wide = await psOnTerminal(['--pid', String(pid), '--wide'], track);
    expect(wide[1]).toMatch(new RegExp(`${SLEEPER} ${LONG_ARGS.join(' ')}$`));
  });

  it('keeps whole lines when piped, and shows START as the wall-clock start', async () => {
    const pid = await startSleeper();
    const result = await runCli(['ps', '--pid', String(pid)], { TZ: 'UTC' });
    expect(result.code).toBe(0);
    const [header, line] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ *PID +PPID +PGID +SID +S +UID +START +TICKS +COMMAND$/);
    const started = new Date(startedAtMs(pid));
    const clock = [started.getUTCHours(), started.getUTCMinutes(), started.getUTCSeconds()]
      .map((n) => String(n).padStart(2, '0'))
      .join(':');
    const today = new Date().toISOString().slice(0, 10) === started.toISOString().slice(0, 10);
    if (today) expect(line).toContain(` ${clock} ${startTimeOf(pid)} ${PERL}`);
    expect(line).toMatch(new RegExp(`${SLEEPER} ${LONG_ARGS.join(' ')}$`));
  });

  it('--json rows are the protocol process node, with the whole argv', async () => {
    const pid = await startSleeper();
    const result = await runCli(['ps', '--json', '--pid', String(pid)]);
    const [row] = JSON.parse(result.stdout) as Record<string, unknown>[];
    const node = processNodeSchema.parse(row);
    expect(node).toMatchObject({ pid, startTime: startTimeOf(pid), escaped: false, startedAtMs: startedAtMs(pid) });
    const joined = [PERL, '-e', SLEEPER_CODE, '--', ...LONG_ARGS].join(' ');
    // The display form is cut as the host cuts it for the UI; `args` stays whole.
    expect(node.commandLine).toBe(joined.length > 512 ? `${joined.slice(0, 511)}…` : joined);
    expect(row?.args).toEqual([PERL, '-e', SLEEPER_CODE, '--', ...LONG_ARGS]);
  });
});
