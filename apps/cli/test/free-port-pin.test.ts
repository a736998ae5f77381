/**
 * `free-port --yes` pinned to the previewed holder (`--expect PID:START`, `--pid --start`): a
 * holder swapped in between the preview and the --yes is refused (exit 3, nothing signalled) and
 * the output says what changed; the previewed holder itself is ended as before. Real listeners:
 * the swap ends the first and binds the second to the same port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { isRunning, pollUntil, startTimeOf, useProcessTracker } from '../../../test-support/index.js';

/** A listener caps its own lifetime, in case cleanup never came. */
const LISTENER_LIFETIME_MS = 60_000;

function listenerScript(port: number): string {
  return `const server = require('node:net').createServer();
    server.listen(${port}, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    setTimeout(() => process.exit(0), ${LISTENER_LIFETIME_MS});`;
}

interface Listener {
  readonly pid: number;
  readonly port: number;
  readonly startTime: string;
}

async function startListener(track: (child: ChildProcess) => number, port = 0): Promise<Listener> {
  const child = spawn(process.execPath, ['-e', listenerScript(port)], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = track(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const bound = await pollUntil(() => (output.includes('\n') ? Number(output.trim()) : undefined), {
    description: `listener ${pid} bound`,
  });
  return { pid, port: bound, startTime: startTimeOf(pid) };
}

describe.skipIf(process.platform !== 'linux')('free-port pinned to the preview', () => {
  const tracker = useProcessTracker();
  const track = (child: ChildProcess) => tracker.trackChild(child, { detached: true });
  beforeAll(assertBuilt);

  it('refuses a holder swapped in after the preview (exit 3), saying so, and signals nothing', async () => {
    const first = await startListener(track);
    const preview = await runCli(['free-port', String(first.port), '--json']);
    const plan = JSON.parse(preview.stdout) as { expect: string; result: string };
    expect(plan.result).toBe('preview');
    expect(plan.expect).toBe(`${first.pid}:${first.startTime}`);

    process.kill(first.pid, 'SIGKILL');
    await pollUntil(() => !isRunning(first.pid), { description: 'the previewed holder gone' });
    const second = await startListener(track, first.port);

    const pinned = await runCli(['free-port', String(first.port), '--yes', '--expect', plan.expect]);
    expect(pinned.code).toBe(3);
    expect(pinned.stderr).toContain(
      `treewarden free-port: pid ${second.pid} (start ${second.startTime}) holds the port now and was not in the preview`,
    );
    expect(pinned.stderr).toContain(
      `treewarden free-port: pid ${first.pid} (start ${first.startTime}) from the preview no longer holds the port`,
    );
    expect(pinned.stderr).toContain(
      `refused, nothing was signalled: the holder changed since the preview: pid ${second.pid} (start ${second.startTime}) was not previewed (expected pid ${first.pid} (start ${first.startTime}))`,
    );
    expect(isRunning(second.pid, second.startTime)).toBe(true);

    const asPidStart = await runCli([
      'free-port',
      String(first.port),
      '--yes',
      '--json',
      '--pid',
      String(first.pid),
      '--start',
      first.startTime,
    ]);
    expect(asPidStart.code).toBe(3);
    const outcome = JSON.parse(asPidStart.stdout) as { result: string; changes: string[]; outcomes: unknown[] };
    expect(outcome.result).toBe('refused');
    expect(outcome.outcomes).toEqual([]);
    expect(outcome.changes).toHaveLength(2);
    expect(isRunning(second.pid, second.startTime)).toBe(true);
  });

  it('ends the previewed holder when it still holds the port', async () => {
    const holder = await startListener(track);
    const preview = await runCli(['free-port', String(holder.port)]);
    expect(preview.stdout).toContain(`identity: --expect ${holder.pid}:${holder.startTime}\n`);
    const freed = await runCli([
      'free-port',
      String(holder.port),
      '--yes',
      '--grace',
      '0.5',
      '--expect',
      `${holder.pid}:${holder.startTime}`,
    ]);
    expect(freed.stderr).toBe('');
    expect(freed.code).toBe(0);
    expect(isRunning(holder.pid, holder.startTime)).toBe(false);
  });

  it.each([
    [['--pid', '12'], '--pid and --start go together'],
    [['--expect', '12'], '--expect "12" is not PID:START'],
    [['--expect', '0:5'], '--expect "0:5" is not PID:START'],
  ])('refuses %j as bad usage (exit 2)', async (flags, message) => {
    const result = await runCli(['free-port', '9', '--yes', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
