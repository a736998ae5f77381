/**
 * The freeze's check read (`frozen`, ownership/tree-owner.ts): after the SIGSTOP it reads only the
 * owned pids when no process born since the last complete tree read touches the trees, and walks
 * the trees otherwise. Here a member forks into a new session after the owner's last look, so the
 * birth must send the read back to the walk: reading the owned pids alone would lose the child.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { identityOf, isRunning, makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../helpers/index.js';

/** Far more pids than a busy machine allocates during the test: readBorn must not give up. */
const GENEROUS_PROBES = 100_000;

describe.skipIf(process.platform !== 'linux')(
  'the freeze reads only the owned pids unless a birth touches the trees',
  () => {
    const tracker = useProcessTracker();

    it('walks the trees when a member forked into a new session after the last look, and kills the child', async () => {
      const dir = makeTempDir();
      try {
        const release = join(dir, 'release');
        execFileSync('mkfifo', [release]);
        // The root waits on the FIFO, then forks a sleeper into a session of its own.
        const root = spawn('/bin/sh', ['-c', 'read line < "$1"; setsid sleep 60 & echo $!; wait', 'sh', release], {
          detached: true,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        const rootPid = tracker.trackChild(root, { detached: true });
        const lines: number[] = [];
        createInterface({ input: root.stdout as NodeJS.ReadableStream }).on('line', (line) => lines.push(Number(line)));
        const owner = createTreeOwner(identityOf(rootPid));
        await owner.observe();
        expect(owner.members().map((m) => m.pid)).toEqual([rootPid]);
        writeFileSync(release, 'go\n');
        const child = await pollUntil(() => lines[0] ?? null, { description: 'the root to fork its sleeper' });
        tracker.trackPid(child);
        await pollUntil(() => readProcEntry(child)?.command === 'sleep' && readProcEntry(child)?.sid === child, {
          description: 'the sleeper to lead its own session',
        });
        const outcome = await killOwnedTree(owner, { graceMs: 0 });
        expect(outcome.result).toBe('killed');
        expect(outcome.killed.map((m) => m.pid)).toContain(child);
        await pollUntil(() => !isRunning(child), { description: 'the sleeper to die' });
        // Two freeze rounds: the first found the child (not stopped yet), the second held.
        const stops = outcome.timeline.filter((entry) => entry.action === 'stop');
        expect(stops.map((entry) => entry.detail)).toEqual(['freeze round 1', 'freeze round 2']);
        expect(stops[1]?.pids).toContain(child);
      } finally {
        removeTempDir(dir);
      }
    });

    it('readBorn lists a process started after the mark, and gives up past its probe bound', async () => {
      const reader = createLinuxReader({ cwd: false });
      const mark = reader.lastAllocatedPid();
      expect(mark).not.toBeNull();
      const sleeper = tracker.trackChild(spawn('sleep', ['60'], { stdio: 'ignore' }));
      const born = await reader.readBorn(mark as number, GENEROUS_PROBES);
      expect(born?.find((b) => b.pid === sleeper)).toMatchObject({ ppid: process.pid });
      expect(await reader.readBorn(mark as number, 0)).toBeNull();
    });
  },
);
