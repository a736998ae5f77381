/**
 * A kill never reaches a process that is not a member through a group signal. Two ways one can sit
 * in an owned group: a descendant that is never a member (the caller's own line), which a tree read
 * shows, and the caller's shell reparented out of the tree (its parent exited), which only the
 * group guard can see. Simulated tables for the first (a fake world whose reader also answers
 * pid-only reads, as the Linux reader does); real processes for the second, with a real killer
 * process whose parent shell sits in the group it is asked to kill.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { readProcEntry } from '../../src/table/index.js';
import { filterTrees } from '../../src/table/trees.js';
import type { TableReader } from '../../src/table/types.js';
import {
  createFakeSignals,
  createFakeWorld,
  type FakeProcess,
  fakeTable,
  identityOf,
  isRunning,
  makeTempDir,
  pollUntil,
  removeTempDir,
  useProcessTracker,
} from '../helpers/index.js';

const CALLER_GROUP = 999;
const ROOT = { pid: 40100, startTime: 'st-40100' };
const ENGINE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

function setup(processes: FakeProcess[]) {
  const world = createFakeWorld(processes);
  const reader: TableReader = {
    platform: 'linux',
    readAll: async () => fakeTable(world.processes),
    readTrees: async (roots) => filterTrees(fakeTable(world.processes), roots),
    readPids: async (pids) => {
      const wanted = new Set(pids);
      return fakeTable(world.processes.filter((p) => wanted.has(p.pid)));
    },
  };
  const signals = createFakeSignals(world);
  return { signals, owner: createTreeOwner(ROOT, { reader, signals, callerGroup: CALLER_GROUP }) };
}

/** Root 40100 leads its session and group; its child 40102 is a shell in that group that started us. */
function treeHoldingOurShell(): FakeProcess[] {
  return [
    { pid: 40100, ppid: 900, pgid: 40100, sid: 40100 },
    { pid: 40101, ppid: 40100, pgid: 40100, sid: 40100 },
    { pid: 40102, ppid: 40100, pgid: 40100, sid: 40100, command: 'sh' },
    { pid: process.pid, ppid: 40102, pgid: CALLER_GROUP, sid: CALLER_GROUP },
  ];
}

describe('strangers in owned groups (simulated tables)', () => {
  for (const graceMs of [0, 30]) {
    it(`refuses before any signal when an owned group holds the caller's shell (grace ${graceMs} ms)`, async () => {
      const { signals, owner } = setup(treeHoldingOurShell());
      const outcome = await killOwnedTree(owner, { graceMs });
      expect(outcome.result).toBe('refused');
      expect(outcome.error).toMatch(/process group 40100 holds live pid 40102 \(sh\) that this tree does not own/);
      expect(signals.calls).toEqual([]);
    });
  }

  it('still group-signals an owned group that holds members only', async () => {
    const { signals, owner } = setup(treeHoldingOurShell().filter((p) => p.pid !== 40102 && p.pid !== process.pid));
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(signals.calls.filter((call) => call.signal === 'SIGSTOP')).toEqual([
      { kind: 'group', target: 40100, signal: 'SIGSTOP' },
    ]);
  });
});

const SLEEP_SECONDS = 60;
/** Bound on the killer (node start-up on a loaded machine). */
const KILLER_TIMEOUT_MS = 25_000;

describe.runIf(process.platform === 'linux')("a real killer whose shell sits in the root's group", () => {
  const tracker = useProcessTracker();

  it('refuses the group signal and leaves the shell running, not stopped', async () => {
    const dir = makeTempDir('tw-strangers-');
    const tag = 'kill';
    const shellFile = join(dir, `${tag}.shell`);
    const outputFile = join(dir, `${tag}.json`);
    const killerScript = join(dir, `${tag}.mjs`);
    writeFileSync(
      killerScript,
      `import { readFileSync, writeFileSync } from 'node:fs';
const [root] = process.argv.slice(2);
const engine = await import(${JSON.stringify(ENGINE_DIST)});
const startTime = readFileSync('/proc/' + root + '/stat', 'utf8').split(') ')[1].split(' ')[19];
const outcome = await engine.killTree({ pid: Number(root), startTime }, { graceMs: 0 });
writeFileSync(${JSON.stringify(outputFile)}, JSON.stringify({ pid: process.pid, result: outcome.result, error: outcome.error }));
`,
    );
    // Root: its own session and group. Its child X backgrounds the shell S and exits, so S is
    // reparented out of the tree while staying in the root's group; S runs the killer in a new
    // session (setsid), so the killer's own group is not the root's.
    const inner = `echo \\$\\$ > ${shellFile}; setsid ${process.execPath} ${killerScript} $ROOT; sleep ${SLEEP_SECONDS}`;
    const script = `ROOT=$$; export ROOT; sh -c '(sh -c "${inner}" &) ; exit 0'; sleep ${SLEEP_SECONDS}`;
    const root = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
    const rootPid = tracker.trackChild(root, { detached: true });
    const shellPid = await pollUntil(
      () => {
        try {
          const pid = Number(readFileSync(shellFile, 'utf8').trim());
          return pid > 0 ? pid : undefined;
        } catch {
          return undefined;
        }
      },
      { description: 'the shell to start' },
    );
    tracker.trackPid(shellPid);
    const output = await pollUntil(
      () => {
        try {
          return JSON.parse(readFileSync(outputFile, 'utf8')) as { pid: number; result: string; error?: string };
        } catch {
          return undefined;
        }
      },
      { description: 'the killer to answer', deadlineMs: KILLER_TIMEOUT_MS },
    );
    tracker.trackPid(output.pid);
    const shell = readProcEntry(shellPid);
    expect(shell?.pgid).toBe(rootPid);
    expect(shell?.ppid).not.toBe(rootPid);
    // Not stopped (T): sleeping, or caught running as it reaps the killer (a CI run saw R).
    const stopped = shell?.state === 'T' || shell?.state === 't';
    expect({ result: output.result, alive: shell !== null, stopped }).toEqual({
      result: 'refused',
      alive: true,
      stopped: false,
    });
    expect(output.error).toMatch(new RegExp(`process group ${rootPid}: it holds pid ${shellPid}, an ancestor`));
    expect(isRunning(rootPid, identityOf(rootPid).startTime)).toBe(true);
    removeTempDir(dir);
  });
});
