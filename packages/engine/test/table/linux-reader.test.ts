import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildEntry } from '../../src/table/linux-entry.js';
import { readProcEntry, readProcTable } from '../../src/table/linux-proc.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import { filterTrees } from '../../src/table/trees.js';
import {
  makeTempDir,
  pollUntil,
  removeTempDir,
  startShell,
  useProcessTracker,
  zombieLeavingScript,
} from '../helpers/index.js';

/** Bound on the unprivileged reader run (node start-up on a loaded box). */
const NOBODY_READ_TIMEOUT_MS = 20_000;
const BUILT_READER = new URL('../../dist/table/linux-reader.js', import.meta.url);
const NOBODY_UID = 65534;
/** Killed node children read while they die (see the test). */
const DYING_READ_ATTEMPTS = 30;
/**
 * The dying-process test starts a node child per attempt: ~0.3 s each here, but beside two busy
 * loops and the e2e suite the 30 took more than the default 30 s (a CI run timed out on it).
 */
const DYING_READ_TIMEOUT_MS = 120_000;
/** `PF_KTHREAD` from include/linux/sched.h (stat field 9). */
const PF_KTHREAD = 0x00200000;

describe('linux /proc reader', () => {
  const tracker = useProcessTracker();

  it('reads a child and grandchild with ancestry, group, session, argv, uid and cwd', async () => {
    const dir = makeTempDir();
    try {
      const shell = startShell(tracker, 'sleep 60 & echo $!; wait', { detached: true, cwd: dir });
      const [grandchild] = (await shell.pids(1)) as [number];
      // `$!` is known once sh forked, not once the child exec'd sleep: until then it reads as sh.
      await pollUntil(() => readProcEntry(grandchild)?.command === 'sleep', {
        description: 'the grandchild to exec sleep',
      });
      const table = createLinuxReader().snapshot();
      const child = table.entries.get(shell.pid);
      const leaf = table.entries.get(grandchild);
      expect(child).toMatchObject({ ppid: process.pid, pgid: shell.pid, sid: shell.pid, command: 'sh' });
      expect(leaf).toMatchObject({ ppid: shell.pid, pgid: shell.pid, sid: shell.pid, command: 'sleep' });
      expect(leaf?.args).toEqual(['sleep', '60']);
      expect(leaf?.uid).toBe(process.getuid?.());
      expect(leaf?.cwd).toBe(dir);
      expect(leaf?.state).toMatch(/^[RS]$/);
      expect(leaf?.startTime).toBe(readProcEntry(grandchild)?.startTime);
      expect(Math.abs((leaf?.startedAtMs ?? 0) - Date.now())).toBeLessThan(60_000);
      expect(table.entries.get(process.pid)?.sid).not.toBe(shell.pid);
    } finally {
      removeTempDir(dir);
    }
  });

  it('gives a setsid child its own session and group', async () => {
    const shell = startShell(tracker, 'setsid sleep 60 & echo $!; wait');
    const [escaped] = (await shell.pids(1)) as [number];
    // setsid(1) execs in place, so the pid is the new session's leader once the exec happened.
    const entry = await pollUntil(
      () => {
        const read = readProcEntry(escaped);
        return read?.command === 'sleep' ? read : null;
      },
      { description: 'the escaped child to exec sleep' },
    );
    expect(entry).toMatchObject({ ppid: shell.pid, sid: escaped, pgid: escaped });
    expect(readProcEntry(shell.pid)?.sid).not.toBe(escaped);
  });

  it('shows an unreaped child as a zombie with no argv or cwd', async () => {
    // sh forks a short child, then execs sleep, which never waits: the child stays a zombie.
    const shell = startShell(tracker, zombieLeavingScript(60));
    const [zombie] = (await shell.pids(1)) as [number];
    const reader = createLinuxReader();
    const entry = await pollUntil(
      () => {
        const read = reader.snapshot().entries.get(zombie);
        return read?.state === 'Z' ? read : null;
      },
      { description: 'the child to become a zombie' },
    );
    expect(entry).toMatchObject({ ppid: shell.pid, args: [], cwd: null });
    expect(reader.snapshotTrees([shell.pid]).entries.get(zombie)?.state).toBe('Z');
  });

  it('skips a process that vanished, whether before or during the read', async () => {
    const shell = startShell(tracker, 'echo $$; read line');
    await shell.pids(1);
    const stat = readStatFields(shell.pid);
    expect(stat).not.toBeNull();
    shell.child.stdin?.end('\n');
    await pollUntil(() => shell.child.exitCode !== null, { description: 'the shell to exit' });
    // The stat line was read while it lived; the rest of the entry can no longer be.
    expect(stat && buildEntry(shell.pid, stat, new Map())).toBeNull();
    expect(readProcEntry(shell.pid)).toBeNull();
    const reader = createLinuxReader();
    expect(reader.snapshot().entries.has(shell.pid)).toBe(false);
    expect(reader.snapshotTrees([shell.pid]).entries.size).toBe(0);
  });

  it(
    'keeps a dying process until it is reaped: live, then a zombie, never gone and back',
    async () => {
      // A killed node child sheds its cwd (exit_fs) well before it turns zombie; that window read
      // as "gone" in about a quarter of tries, so 30 tries miss it by chance about once in 3,000.
      const reads: string[] = [];
      for (let attempt = 0; attempt < DYING_READ_ATTEMPTS; attempt += 1) {
        const child = spawn(process.execPath, ['-e', 'console.log("up"); setInterval(() => {}, 1000)'], {
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        const pid = tracker.trackChild(child);
        await once(child.stdout as NodeJS.ReadableStream, 'data');
        let reaped = false;
        child.once('exit', () => {
          reaped = true;
        });
        process.kill(pid, 'SIGKILL');
        let seen = '';
        while (!reaped) {
          const entry = readProcEntry(pid);
          seen += entry === null ? '-' : entry.state === 'Z' ? 'Z' : 'L';
          await new Promise((resolve) => setImmediate(resolve));
        }
        reads.push(seen);
      }
      // Once a read says "gone", the pid is reaped: nothing may follow it.
      expect(reads.filter((seen) => /-[^-]/.test(seen))).toEqual([]);
    },
    DYING_READ_TIMEOUT_MS,
  );

  it('never throws while processes come and go during full reads', async () => {
    const churn = startShell(tracker, 'i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done');
    const reader = createLinuxReader();
    let reads = 0;
    while (churn.child.exitCode === null && reads < 50) {
      expect(reader.snapshot().entries.has(process.pid)).toBe(true);
      reads += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(reads).toBeGreaterThan(0);
  });

  it('refreshes owned trees: grandchildren in, unrelated processes out', async () => {
    const owned = startShell(tracker, 'for i in 1 2 3; do sh -c "sleep 60 & sleep 60 & wait" & done; echo go; wait', {
      detached: true,
    });
    const unrelated = startShell(tracker, 'exec sleep 60');
    await owned.pids(1);
    const reader = createLinuxReader();
    // 1 root + 3 middle shells + 6 sleeps, once every fork and exec has happened.
    const tree = await pollUntil(
      () => {
        const read = reader.snapshotTrees([owned.pid]);
        const sleeps = [...read.entries.values()].filter((entry) => entry.command === 'sleep');
        return read.entries.size === 10 && sleeps.length === 6 ? read : null;
      },
      { description: 'the owned tree of 10 with 6 sleeps' },
    );
    const expected = filterTrees(reader.snapshot(), [owned.pid]);
    expect([...tree.entries.keys()].sort()).toEqual([...expected.entries.keys()].sort());
    const leaves = [...tree.entries.values()].filter((entry) => entry.command === 'sleep');
    expect(leaves).toHaveLength(6);
    for (const leaf of leaves) expect(tree.entries.get(leaf.ppid)?.ppid).toBe(owned.pid);
    expect(tree.entries.has(unrelated.pid)).toBe(false);
    expect(tree.entries.has(process.pid)).toBe(false);
    expect(reader.snapshotTrees([]).entries.size).toBe(0);
  });

  it('walks every thread of a multi-threaded parent (this test process)', async () => {
    const shell = startShell(tracker, 'exec sleep 60');
    const read = await createLinuxReader().readTrees([process.pid]);
    expect(read?.entries.get(shell.pid)?.ppid).toBe(process.pid);
    expect(read?.entries.get(process.pid)?.pid).toBe(process.pid);
  });

  it('re-reads argv after exec (same pid and start time, new comm)', async () => {
    const shell = startShell(tracker, 'echo $$; read line; exec sleep 60 "$1"', { args: ['1'] });
    await shell.pids(1);
    const reader = createLinuxReader();
    const before = reader.snapshot().entries.get(shell.pid);
    expect(before?.args[0]).toBe('/bin/sh');
    shell.child.stdin?.write('\n');
    // A read inside exec can see the new comm before the new argv exists (empty); that must not
    // be cached, so a later read has to show the real argv.
    const after = await pollUntil(
      () => {
        const read = reader.snapshot().entries.get(shell.pid);
        return read?.command === 'sleep' && read.args.length > 0 ? read : null;
      },
      { description: 'the shell to exec sleep' },
    );
    expect(after.args).toEqual(['sleep', '60', '1']);
    expect(after.startTime).toBe(before?.startTime);
  });

  it('replaces invalid UTF-8 in argv without losing the rest of the entry', async () => {
    const hasBash = spawnSync('bash', ['-c', 'exit 0']).status === 0;
    if (!hasBash) return;
    // bash's `exec -a` sets argv[0] to raw bytes that are not UTF-8.
    const child = spawn('bash', ['-c', 'exec -a "$(printf "bad\\377name")" sleep 60'], { stdio: 'ignore' });
    const pid = tracker.trackChild(child);
    const entry = await pollUntil(
      () => {
        const read = readProcEntry(pid);
        return read?.command === 'sleep' ? read : null;
      },
      { description: 'the renamed process to exec sleep' },
    );
    expect(entry.args).toEqual(['bad\uFFFDname', '60']);
    expect(entry).toMatchObject({ ppid: process.pid, uid: process.getuid?.() });
    expect(entry.cwd).toBe(process.cwd());
  });

  const canDropToNobody = process.getuid?.() === 0 && existsSync(BUILT_READER) && existsSync('/usr/bin/setpriv');
  it.skipIf(!canDropToNobody)('degrades only cwd for a process another user may not inspect', () => {
    // The built reader, run as nobody, reads this root-owned process twice (the second read uses
    // the cached "cwd unreadable" answer).
    const script = [
      'const { createLinuxReader } = await import(process.argv[1]);',
      'const reader = createLinuxReader();',
      'reader.snapshot();',
      'console.log(JSON.stringify(reader.snapshot().entries.get(Number(process.argv[2]))));',
    ].join('\n');
    const output = execFileSync(
      'setpriv',
      [
        `--reuid=${NOBODY_UID}`,
        `--regid=${NOBODY_UID}`,
        '--clear-groups',
        process.execPath,
        '--input-type=module',
      ].concat(['-e', script, BUILT_READER.href, String(process.pid)]),
      { encoding: 'utf8', timeout: NOBODY_READ_TIMEOUT_MS, cwd: '/' },
    );
    const seen = JSON.parse(output);
    const truth = readProcEntry(process.pid);
    expect(seen).toMatchObject({ pid: process.pid, ppid: truth?.ppid, uid: 0, args: truth?.args, cwd: null });
    expect(truth?.cwd).toBe(process.cwd());
  });

  it.skipIf(!canDropToNobody)('gives a non-dumpable process its effective uid, as status says', async () => {
    // Real uid root, effective uid nobody: exec makes it non-dumpable, which turns most of its
    // /proc files root-owned; the first and the cached read must both say nobody.
    const child = spawn('setpriv', [`--euid=${NOBODY_UID}`, 'sleep', '60'], { stdio: 'ignore' });
    const pid = tracker.trackChild(child);
    const reader = createLinuxReader();
    const entry = await pollUntil(
      () => {
        const read = reader.snapshot().entries.get(pid);
        return read?.command === 'sleep' && read.args.length > 0 ? read : null;
      },
      { description: 'setpriv to exec sleep' },
    );
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+0\\s+${NOBODY_UID}\\s`, 'm'));
    expect(statSync(`/proc/${pid}/status`).uid).toBe(0); // non-dumpable: the files say root
    expect(entry).toMatchObject({ uid: NOBODY_UID, args: ['sleep', '60'] });
    expect(reader.snapshot().entries.get(pid)?.uid).toBe(NOBODY_UID);
    expect(readProcEntry(pid)?.uid).toBe(NOBODY_UID);
  });

  it('gives kernel threads uid 0 and no argv (where any are visible)', () => {
    const table = createLinuxReader().snapshot();
    const kernelThreads = [...table.entries.values()].filter(
      (entry) => entry.pid !== process.pid && (readStatFields(entry.pid)?.flags ?? 0) & PF_KTHREAD,
    );
    for (const thread of kernelThreads) {
      expect(thread).toMatchObject({ uid: 0, args: [] });
      expect(readFileSync(`/proc/${thread.pid}/cmdline`).length).toBe(0);
    }
    // Every other process here has argv (the reader ran as root, and zombies are not expected).
    const userProcess = table.entries.get(process.pid);
    expect(userProcess?.args.length).toBeGreaterThan(0);
    expect(userProcess?.uid).toBe(process.getuid?.());
  });

  it('keeps an unchanged process its entry object, and never hides a change', async () => {
    const sleeper = startShell(tracker, 'echo $$; exec sleep 60');
    const spinner = startShell(tracker, 'echo $$; while :; do :; done');
    await Promise.all([sleeper.pids(1), spinner.pids(1)]);
    const reader = createLinuxReader();
    // Right after its exec the sleeper may still fault pages in (rss moves); once it sleeps, two
    // reads in a row must hand out the same object.
    const kept = await pollUntil(
      () => {
        const read = reader.snapshot().entries.get(sleeper.pid);
        const again = reader.snapshot().entries.get(sleeper.pid);
        return read?.command === 'sleep' && read.args.length > 0 && read === again ? read : null;
      },
      { description: 'the sleeper to keep its entry between two reads' },
    );
    const { cpuTimeMs: _a, childrenCpuTimeMs: _b, rssBytes: _c, ...fresh } = readProcEntry(sleeper.pid) ?? {};
    expect(kept).toMatchObject({ ...fresh, args: ['sleep', '60'] });
    const first = reader.snapshot();
    // The spinner burns CPU: each read that sees more CPU time must carry it in a new entry.
    const before = first.entries.get(spinner.pid);
    const after = await pollUntil(
      () => {
        const read = reader.snapshot().entries.get(spinner.pid);
        return read !== undefined && read.cpuTimeMs > (before?.cpuTimeMs ?? 0) ? read : null;
      },
      { description: 'the spinner to use CPU' },
    );
    expect(after).not.toBe(before);
    expect(after.cpuTimeMs).toBeLessThanOrEqual(readProcEntry(spinner.pid)?.cpuTimeMs ?? Number.NaN);
  });

  it('keeps the uncached entry points consistent with the reader', () => {
    const { cpuTimeMs, rssBytes, ...cached } = readProcTable().entries.get(process.pid) ?? {};
    const { cpuTimeMs: _cpu, rssBytes: _rss, ...fresh } = readProcEntry(process.pid) ?? {};
    expect(cpuTimeMs).toBeTypeOf('number');
    expect(rssBytes).toBeGreaterThan(0);
    expect(cached).toEqual(fresh);
  });
});
