/**
 * The marker reader's cache and exec: a process keeps its pid and start time across exec, but its
 * environment is the new program's. A shell that execs `env MARK=1 prog` is read again once its
 * table entry shows the new program; the shell's environment is not kept for it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMarkerReader } from '../../src/agents/read/environ.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
const MARKER = 'TW_EXEC_MARK_TEST';

describe.skipIf(process.platform !== 'linux')('marker reader across exec', () => {
  it('reads the environment again once the process runs another program', async () => {
    const value = randomUUID();
    tracker.trackEnvMarker('TW_EXEC_MARK_RUN', value);
    const child = spawn('sh', ['-c', `read go; exec env ${MARKER}=${value} sleep 600`], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, TW_EXEC_MARK_RUN: value },
    });
    const pid = tracker.trackChild(child);
    const read = createMarkerReader(new Set([MARKER, 'TW_EXEC_MARK_RUN']));
    const shell = readProcEntry(pid);
    expect(shell?.command).toBe('sh');
    expect(read(shell as NonNullable<typeof shell>)?.get(MARKER)).toBeUndefined();
    child.stdin.end('\n');
    const slept = await pollUntil(
      () => {
        const entry = readProcEntry(pid);
        return entry?.command === 'sleep' ? entry : null;
      },
      { description: 'the shell to exec sleep' },
    );
    expect(slept.startTime).toBe(shell?.startTime);
    expect(read(slept)?.get(MARKER)).toBe(value);
    // Asked with no program (an identity only), the last read stands.
    expect(read({ pid, startTime: slept.startTime })?.get(MARKER)).toBe(value);
  });
});
