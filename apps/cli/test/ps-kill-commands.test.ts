import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import {
  isRunning,
  pollUntil,
  readReportedPids,
  removeTempDir,
  spawnFixture,
  startTimeOf,
  useProcessTracker,
} from '../../../test-support/index.js';

interface PsNode {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  state: string;
  startTime: string;
  uid: number;
  command: string;
  args: string[];
  children?: PsNode[];
}

describe('treewarden ps and kill', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  /** A detached parent with two children, all reported and running. */
  async function spawnTree() {
    const fixture = spawnFixture(tracker, 'spawn-children.mjs', ['2', 'run-forever.mjs'], { detached: true });
    dirs.push(fixture.dir);
    const [parent] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'parent' });
    const children = (parent?.children as number[]) ?? [];
    await pollUntil(() => children.every((pid) => isRunning(pid)), { description: 'both children running' });
    return { pid: fixture.pid, children };
  }

  it('ps --json lists identity fields for every process, this one included', async () => {
    const result = await runCli(['ps', '--json']);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as PsNode[];
    const self = rows.find((row) => row.pid === process.pid);
    expect(self).toMatchObject({ ppid: process.ppid, startTime: startTimeOf(process.pid), uid: process.getuid?.() });
    // The protocol's process node (no cpuPercent: one read has no earlier CPU time), plus args.
    expect(Object.keys(self ?? {}).sort()).toEqual(
      [
        'args',
        'command',
        'commandLine',
        'cwd',
        'escaped',
        'pgid',
        'pid',
        'ppid',
        'rssBytes',
        'sid',
        'startTime',
        'startedAtMs',
        'state',
        'uid',
      ].sort(),
    );
  });

  it('ps lists pids in numeric order, as text and as JSON (not 1, 10, 11497, 12)', async () => {
    const ascending = (pids: readonly number[]) => pids.every((pid, i) => i === 0 || (pids[i - 1] ?? 0) < pid);
    const json = JSON.parse((await runCli(['ps', '--json'])).stdout) as PsNode[];
    expect(json.length).toBeGreaterThan(1);
    expect(ascending(json.map((row) => row.pid))).toBe(true);
    const text = (await runCli(['ps'])).stdout.trim().split('\n').slice(1);
    expect(ascending(text.map((line) => Number(line.trim().split(/\s+/)[0])))).toBe(true);
  });

  it('ps --tree --pid limits to the subtree, nested in JSON and indented in text', async () => {
    const tree = await spawnTree();
    const json = await runCli(['ps', '--json', '--tree', '--pid', String(tree.pid)]);
    const [root, ...others] = JSON.parse(json.stdout) as PsNode[];
    expect(others).toEqual([]);
    expect(root?.pid).toBe(tree.pid);
    expect(root?.children?.map((child) => child.pid).sort()).toEqual([...tree.children].sort());
    expect(root?.children?.[0]?.args.some((arg) => arg.endsWith('run-forever.mjs'))).toBe(true);

    const text = await runCli(['ps', '--tree', '--pid', String(tree.pid)]);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/PID +PPID +PGID +SID +S +UID +START +TICKS +COMMAND/);
    expect(lines).toHaveLength(4); // header, parent, two children
    const childLine = lines.find((line) => line.trimStart().startsWith(`${tree.children[0]} `)) ?? '';
    expect(childLine).toMatch(/ {2}\S*node .*run-forever\.mjs/);
  });

  it('ps --pid of a missing process exits 1; a bad pid exits 2', async () => {
    expect((await runCli(['ps', '--pid', '999999999'])).code).toBe(1);
    expect((await runCli(['ps', '--pid', 'abc'])).code).toBe(2);
  });

  it('kill ends the whole tree and exits 0', async () => {
    const tree = await spawnTree();
    const result = await runCli(['kill', String(tree.pid), '--grace', '0.5', '--json']);
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { result: string; killed: { pid: number }[]; survivors: unknown[] };
    expect(outcome.result).toBe('killed');
    expect(outcome.survivors).toEqual([]);
    expect(outcome.killed.map((k) => k.pid).sort()).toEqual([tree.pid, ...tree.children].sort());
    for (const pid of [tree.pid, ...tree.children]) expect(isRunning(pid)).toBe(false);
  });

  it('kill --start with another start time exits 3 and signals nothing', async () => {
    const tree = await spawnTree();
    const wrongStart = String(Number(startTimeOf(tree.pid)) - 1);
    const result = await runCli(['kill', String(tree.pid), '--start', wrongStart]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /identity became uncertain: pid \d+ now has start time \S+, expected \S+.*nothing was signalled/,
    );
    for (const pid of [tree.pid, ...tree.children]) expect(isRunning(pid)).toBe(true);
    // The tracker ends the tree after the test, by the identities it recorded.
  });

  it('kill of a pid that is gone exits 0; a bad PID or grace exits 2', async () => {
    expect((await runCli(['kill', '999999999'])).code).toBe(0);
    expect((await runCli(['kill', 'abc'])).code).toBe(2);
    const grace = await runCli(['kill', '999999999', '--grace=-1']);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toContain('grace -1 is below MIN_GRACE_SECONDS (0)');
  });
});
