/**
 * The focused read's incremental children (it keeps the idle observer cheap) over real processes: once a
 * process has been followed, its children come from the new pids' and its followed descendants'
 * stat lines instead of its per-thread `children` files. Each way a process gains a child is
 * tried: a fork by a followed member, a setsid escape, a grandchild reparented to pid 1 or to a
 * followed subreaper when its parent dies, and a process that entered a pid namespace with setns
 * orphaned to that namespace's init (neither new nor a descendant: only the exact read of a
 * namespace init finds it). Each read asserted on is a derived one, and is checked against an
 * exact read of the same moment (the control), with a process nobody follows as the negative.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFocusedReader,
  type FocusedReader,
  hasMarkers,
  readFocusedTable,
} from '../../src/agents/observe/focused-table.js';
import { markerReaderFor } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { readChildPids } from '../../src/table/linux-children.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { createNamespaceInitCache, parseIsNamespaceInit } from '../../src/table/pid-namespace-init.js';
import type { ProcessEntry, ProcessTable } from '../../src/table/types.js';
import { fixturePath, makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
const evidence = hasMarkers(markerReaderFor(loadAgentRules(makeTempDir()).rules));
/** A derived read can fall back to an exact one when the pid allocator wraps (pid_max is 32768 here): try again. */
const ATTEMPTS = 3;

function live(pid: number): ProcessEntry {
  const entry = readProcEntry(pid);
  if (entry === null) throw new Error(`process ${pid} is not running`);
  return entry;
}

/** An ended session's record naming `member`: the focused read follows it and its descendants. */
function recordNaming(member: ProcessEntry): StoredSession {
  return {
    version: 1,
    id: `claude-code-${randomUUID()}`,
    agent: 'claude-code',
    root: { pid: 4_194_000, startTime: '1', args: ['claude'] },
    cwd: null,
    startedAtMs: member.startedAtMs - 1000,
    lastSeenAtMs: member.startedAtMs + 1000,
    endedAtMs: member.startedAtMs + 1000,
    members: [
      { pid: member.pid, startTime: member.startTime, ppid: member.ppid, role: 'other', args: [], via: 'marker' },
    ],
    sessionKeys: [],
  };
}

interface Shell {
  readonly pid: number;
  /** Runs a line in the shell; each `$!`/`$$` it writes to `NAME` (a file in its dir) comes back by name. */
  run(line: string, names: readonly string[]): Promise<number[]>;
}

/** A shell reading commands from a pipe, with agent markers in its environment (inherited by all it starts). */
function startShell(child: ChildProcess, shellPid: number | null = null): Shell {
  const dir = makeTempDir();
  const pid = shellPid ?? tracker.trackChild(child, { detached: true });
  return {
    pid,
    async run(line, names) {
      child.stdin?.write(`cd ${dir}\n${line}\n`);
      const pids: number[] = [];
      for (const name of names) {
        const reported = await pollUntil(
          () => {
            try {
              const value = Number(readFileSync(join(dir, name), 'utf8').trim());
              return value > 0 ? value : null;
            } catch {
              return null;
            }
          },
          { description: `the shell to report ${name}` },
        );
        tracker.trackPid(reported);
        pids.push(reported);
      }
      return pids;
    },
  };
}

function markedEnv(marked: boolean): NodeJS.ProcessEnv {
  return marked ? { ...process.env, CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: randomUUID() } : { ...process.env };
}

function plainShell(marked = true): Shell {
  return startShell(spawn('sh', [], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: markedEnv(marked) }));
}

/** Pids in `table` under `root` by ppid (root included). */
function subtree(table: ProcessTable, root: number): number[] {
  const found = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of table.entries.values())
      if (!found.has(entry.pid) && found.has(entry.ppid)) {
        found.add(entry.pid);
        grew = true;
      }
  }
  return [...found].filter((pid) => table.entries.has(pid)).sort((a, b) => a - b);
}

/** A reader that has followed `records` once exactly and once derived. */
function warmReader(records: readonly StoredSession[]): FocusedReader {
  const reader = createFocusedReader(evidence, new Map());
  reader.read(records, new Set());
  reader.read(records, new Set());
  return reader;
}

/**
 * Runs `scenario` until its last read was a derived one (a pid wrap between two reads makes it
 * exact, which proves nothing about the derivation); the scenario does its own asserting.
 */
async function whileDerived(scenario: () => Promise<FocusedReader>): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const reader = await scenario();
    if (reader.lastMode === 'incremental') return;
  }
  throw new Error(`no derived read in ${ATTEMPTS} attempts (the pid allocator wrapped every time?)`);
}

describe('the focused read derives children of followed processes', () => {
  it('a new child forked by a followed member is in the next read; a stranger’s child is not', async () => {
    await whileDerived(async () => {
      const member = plainShell();
      const stranger = plainShell(false);
      const records = [recordNaming(live(member.pid))];
      const reader = warmReader(records);
      const [child] = await member.run('sleep 600 & echo $! > child', ['child']);
      const [strangers] = await stranger.run('sleep 600 & echo $! > child', ['child']);
      const table = reader.read(records, new Set());
      expect(table.entries.get(child as number)?.ppid).toBe(member.pid);
      expect(table.entries.get(child as number)?.cwd).not.toBeNull();
      expect(table.entries.has(strangers as number)).toBe(false);
      // Control: the exact read of the same tree finds the same processes.
      expect(subtree(table, member.pid)).toEqual(
        subtree(readFocusedTable(records, new Set(), evidence, new Map()), member.pid),
      );
      return reader;
    });
  });

  it('a setsid escape is found as the child it is, and again once orphaned to pid 1', async () => {
    await whileDerived(async () => {
      const member = plainShell();
      const records = [recordNaming(live(member.pid))];
      const reader = warmReader(records);
      const [escaped] = await member.run('setsid sleep 600 & echo $! > escaped', ['escaped']);
      await pollUntil(() => readProcEntry(escaped as number)?.sid === escaped || null, { description: 'setsid' });
      let table = reader.read(records, new Set());
      expect(table.entries.get(escaped as number)?.ppid).toBe(member.pid);
      expect(table.entries.get(escaped as number)?.sid).not.toBe(live(member.pid).sid);
      // Escaped and orphaned at once: a subshell starts it in its own session and exits.
      const [orphan] = await member.run('(setsid sleep 600 & echo $! > orphan)', ['orphan']);
      await pollUntil(() => readProcEntry(orphan as number)?.ppid === 1 || null, {
        description: 'the orphan under pid 1',
      });
      // The subshell that started it is a zombie child of the member until the shell reaps it. A
      // read on either side of that reaping is right; the two reads compared below must not fall
      // on both sides (CI saw the derived read with the zombie and the exact read without it).
      await pollUntil(() => readChildPids(member.pid, 1).length === 1 || null, {
        description: 'the subshell reaped',
      });
      table = reader.read(records, new Set());
      // Followed (it carries the markers): read with its cwd, not as a bare child of pid 1.
      expect(table.entries.get(orphan as number)?.cwd).not.toBeNull();
      // Control: the exact read agrees on the member's tree.
      expect(subtree(table, member.pid)).toEqual(
        subtree(readFocusedTable(records, new Set(), evidence, new Map()), member.pid),
      );
      return reader;
    });
  });

  it('a grandchild whose parent dies is found under pid 1', async () => {
    await whileDerived(async () => {
      const member = plainShell();
      const records = [recordNaming(live(member.pid))];
      const [parent, grandchild] = await member.run(
        "sh -c 'sleep 600 & echo $! > grandchild; exec sleep 600' & echo $! > parent",
        ['parent', 'grandchild'],
      );
      await pollUntil(() => readProcEntry(parent as number)?.command === 'sleep' || null, { description: 'the exec' });
      const reader = warmReader(records);
      // Control: before its parent dies the grandchild is followed under it.
      expect(reader.read(records, new Set()).entries.get(grandchild as number)?.ppid).toBe(parent);
      process.kill(parent as number, 'SIGKILL');
      await pollUntil(() => readProcEntry(grandchild as number)?.ppid === 1 || null, { description: 'reparenting' });
      const table = reader.read(records, new Set());
      expect(table.entries.get(grandchild as number)?.ppid).toBe(1);
      expect(table.entries.get(grandchild as number)?.cwd).not.toBeNull();
      return reader;
    });
  });

  it('a grandchild orphaned to a followed subreaper is derived from its own stat (neither new nor under pid 1)', async () => {
    await whileDerived(async () => {
      const child = spawn(process.execPath, [fixturePath('subreaper-shell.mjs')], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
        env: markedEnv(true),
      });
      const subreaper = tracker.trackChild(child, { detached: true });
      // Node is multi-threaded: any count above 1 reads every thread's children file.
      const shellPid = await pollUntil(() => readChildPids(subreaper, 2)[0] ?? null, {
        description: 'the subreaper’s shell',
      });
      tracker.trackPid(shellPid);
      const shell = startShell(child, shellPid);
      const [parent, grandchild] = await shell.run(
        "sh -c 'sleep 600 & echo $! > grandchild; exec sleep 600' & echo $! > parent",
        ['parent', 'grandchild'],
      );
      await pollUntil(() => readProcEntry(parent as number)?.command === 'sleep' || null, { description: 'the exec' });
      const records = [recordNaming(live(subreaper))];
      const reader = warmReader(records);
      expect(reader.read(records, new Set()).entries.get(grandchild as number)?.ppid).toBe(parent);
      process.kill(parent as number, 'SIGKILL');
      await pollUntil(() => readProcEntry(grandchild as number)?.ppid === subreaper || null, {
        description: 'adoption by the subreaper',
      });
      const table = reader.read(records, new Set());
      expect(table.entries.get(grandchild as number)?.ppid).toBe(subreaper);
      // Control: the exact read agrees on the subreaper's tree.
      expect(subtree(table, subreaper)).toEqual(
        subtree(readFocusedTable(records, new Set(), evidence, new Map()), subreaper),
      );
      return reader;
    });
  });

  it('a setns process’s orphan adopted by a followed pid-namespace init is found (the init is read exactly)', async () => {
    await whileDerived(async () => {
      const member = plainShell();
      const [unshare] = await member.run('unshare --pid --fork sleep 600 & echo $! > unshare', ['unshare']);
      const init = await pollUntil(() => readChildPids(unshare as number, 1)[0] ?? null, { description: 'the init' });
      tracker.trackPid(init);
      // Entered from outside (nobody follows this nsenter): its shell's child is not the init's descendant.
      const entered = spawn('nsenter', ['-t', String(init), '-p', '--', 'sh', '-c', 'sleep 600 & read line'], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      });
      const nsenter = tracker.trackChild(entered, { detached: true });
      const innerShell = await pollUntil(() => readChildPids(nsenter, 1)[0] ?? null, {
        description: 'the inner shell',
      });
      const sleeper = await pollUntil(() => readChildPids(innerShell, 1)[0] ?? null, { description: 'its sleeper' });
      tracker.trackPid(innerShell);
      tracker.trackPid(sleeper);
      const records = [recordNaming(live(member.pid))];
      const reader = warmReader(records);
      // Control: the sleeper is nobody's followed descendant yet, and only the init is a namespace init.
      expect(reader.read(records, new Set()).entries.has(sleeper)).toBe(false);
      const inits = createNamespaceInitCache();
      expect(inits.isInit(init, live(init).startTime)).toBe(true);
      expect(inits.isInit(member.pid, live(member.pid).startTime)).toBe(false);
      entered.stdin?.end('\n');
      await pollUntil(() => readProcEntry(sleeper)?.ppid === init || null, { description: 'adoption by the init' });
      const table = reader.read(records, new Set());
      expect(table.entries.get(sleeper)?.ppid).toBe(init);
      return reader;
    });
  });
});

describe('namespace inits by NSpid', () => {
  it('the last NSpid of an init is 1; a process in the root namespace or deeper in one is not an init', () => {
    expect(parseIsNamespaceInit('Name:\tsleep\nNSpid:\t5283\t1\nNSpgid:\t5283\t1\n')).toBe(true);
    expect(parseIsNamespaceInit('Name:\tsleep\nNSpid:\t5283\t2\n')).toBe(false);
    expect(parseIsNamespaceInit('Name:\tsleep\nNSpid:\t1\n')).toBe(false);
  });
});
