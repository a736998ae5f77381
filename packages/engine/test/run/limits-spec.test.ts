/**
 * Limit values are refused before anything launches, with a message naming the bound; sizes parse
 * as documented; the tree's CPU accounting never counts a process twice and never goes down
 * (exact reap orders are injected: they cannot be staged reliably with real processes).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  type CgroupProbeDeps,
  commonAncestor,
  findCgroup2Mount,
  probeCgroup,
  requireCgroup,
} from '../../src/run/cgroup-probe.js';
import { createLimitChecker } from '../../src/run/limit-check.js';
import type { RunLimits } from '../../src/run/limits.js';
import { MAX_MEMORY_LIMIT_BYTES, parseSize } from '../../src/run/limits.js';
import { startRun } from '../../src/run/start-run.js';
import { createTreeUsageMeter } from '../../src/run/tree-usage.js';
import { RunSpecError } from '../../src/run/validate.js';
import { type FakeProcess, fakeTable, makeTempDir, removeTempDir } from '../helpers/index.js';
import { cookieCarriers } from './stub-owner.js';

const MIB = 1024 * 1024;

describe('parseSize', () => {
  it.each([
    ['512M', 512 * MIB],
    ['2G', 2 * 1024 * MIB],
    ['1.5G', 1.5 * 1024 * MIB],
    ['1048576', MIB],
    ['64k', 64 * 1024],
    ['1T', 1024 ** 4],
    ['256MiB', 256 * MIB],
    ['3MB', 3 * MIB],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each(['M', '-1G', '1.5', '12Q', '1e9', '0x10', '2 G B', 'NaN', '1G ', ' 3 MB '])(
    'refuses %j with how to write a size',
    (text) => {
      expect(() => parseSize(text)).toThrow(/is not a size: give bytes or a number with K, M, G or T/);
    },
  );
});

describe('limit bounds are checked before anything launches', () => {
  it.each<[RunLimits | Record<string, unknown>, string]>([
    [{ maxMemoryBytes: 0 }, 'max-memory 0 is below MIN_MEMORY_LIMIT_BYTES (1048576)'],
    [{ maxMemoryBytes: MAX_MEMORY_LIMIT_BYTES + 1 }, 'is above MAX_MEMORY_LIMIT_BYTES'],
    [{ maxMemoryBytes: 1.5 * MIB + 0.5 }, 'max-memory 1572864.5 is not a whole number of bytes'],
    [{ maxProcs: 0 }, 'max-procs 0 is below MIN_PROCS_LIMIT (1)'],
    [{ maxProcs: -3 }, 'max-procs -3 is below MIN_PROCS_LIMIT (1)'],
    [{ maxProcs: 2.5 }, 'max-procs 2.5 is not a whole number of processes'],
    [{ maxProcs: 1_000_000 }, 'max-procs 1000000 is above MAX_PROCS_LIMIT (65536)'],
    [{ maxCpuSeconds: 0 }, 'max-cpu 0 is below MIN_CPU_LIMIT_SECONDS (1)'],
    [{ maxCpuSeconds: Number.NaN }, 'max-cpu NaN is not a number of seconds'],
    [{ maxCpuSeconds: Number.POSITIVE_INFINITY }, 'max-cpu Infinity is not a number of seconds'],
    [{ idleTimeoutSeconds: -1 }, 'idle-timeout -1 is below MIN_IDLE_TIMEOUT_SECONDS (1)'],
    [{ idleTimeoutSeconds: 5401 }, 'idle-timeout 5401 is above MAX_IDLE_TIMEOUT_SECONDS (5400)'],
    [{ maxMemoryBytes: '512M' }, 'max-memory 512M is not a number of bytes'],
    [{ maxMemory: 512 * MIB }, 'unknown limit maxMemory: the limits are maxMemoryBytes'],
  ])('refuses %j', (limits, message) => {
    const dir = makeTempDir();
    const marker = join(dir, 'launched');
    const readEntry = vi.fn(() => null);
    const runId = `limits-spec-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      const start = () =>
        startRun({ command: 'touch', args: [marker], runId, limits: limits as RunLimits }, { readEntry });
      expect(start).toThrow(RunSpecError);
      expect(start).toThrow(message);
      expect(readEntry).not.toHaveBeenCalled();
      expect(cookieCarriers(runId)).toEqual([]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      removeTempDir(dir);
    }
  });

  it('refuses an idle timeout when the output is not captured (it could never see output)', () => {
    expect(() => startRun({ command: 'true', output: 'inherit', limits: { idleTimeoutSeconds: 5 } })).toThrow(
      'idle-timeout needs the output captured or teed',
    );
  });

  it('refuses cgroup where the probe found no parent, with its reason, before anything launches', () => {
    const none = () => ({ available: false, reason: 'no cgroup2 file system is mounted' }) as const;
    const dir = makeTempDir();
    try {
      const marker = join(dir, 'launched');
      expect(() => startRun({ command: 'touch', args: [marker], cgroup: true }, { probeCgroup: none })).toThrow(
        'cgroup: no usable cgroup v2 parent here: no cgroup2 file system is mounted; without --cgroup the tree is owned and its limits enforced by polling',
      );
      expect(() => startRun({ command: 'touch', args: [marker], cgroup: true }, { probeCgroup: none })).toThrow(
        RunSpecError,
      );
      expect(existsSync(marker)).toBe(false);
    } finally {
      removeTempDir(dir);
    }
    const found = { available: true, path: '/sys/fs/cgroup/x', controllers: ['cpu'] } as const;
    expect(requireCgroup(() => found)).toBe(found);
  });
});

function member(pid: number, ppid: number, cpuTimeMs: number, extra: Partial<FakeProcess> = {}): FakeProcess {
  return { pid, ppid, pgid: pid, startTime: `s${pid}`, cpuTimeMs, childrenCpuTimeMs: 0, ...extra };
}

function update(meter: ReturnType<typeof createTreeUsageMeter>, processes: FakeProcess[]) {
  const table = fakeTable(processes);
  const owned = processes.filter((p) => p.state !== 'Z').map((p) => ({ pid: p.pid, startTime: `s${p.pid}` }));
  return meter.update(table, owned);
}

describe('tree usage accounting', () => {
  it('a child reaped by a live member is counted once, through the parent’s cutime/cstime', () => {
    const meter = createTreeUsageMeter();
    expect(update(meter, [member(10, 1, 100), member(11, 10, 700)]).cpuMs).toBe(800);
    // 11 exits and 10 waits for it: 10's children CPU now holds 11's final 900 ms.
    expect(update(meter, [member(10, 1, 150, { childrenCpuTimeMs: 900 })]).cpuMs).toBe(1050);
  });

  it('a member whose parent is gone (reaped outside the tree) keeps its last seen CPU', () => {
    const meter = createTreeUsageMeter();
    update(meter, [member(10, 1, 100), member(11, 10, 300), member(12, 11, 400)]);
    // 11 exited (its parent 10 lives: 10 reaps it) … and 12 was reparented to the guardian.
    const after = update(meter, [member(10, 1, 100, { childrenCpuTimeMs: 300 }), member(12, 999, 500)]);
    expect(after.cpuMs).toBe(900);
    // 12 exits too, reaped by the guardian: its last seen 500 ms stays.
    expect(update(meter, [member(10, 1, 120, { childrenCpuTimeMs: 300 })]).cpuMs).toBe(920);
  });

  it('never goes down, and counts memory and live members without zombies', () => {
    const meter = createTreeUsageMeter();
    const first = update(meter, [
      member(10, 1, 500, { rssBytes: 10 * MIB }),
      member(11, 10, 500, { rssBytes: 5 * MIB }),
    ]);
    expect(first).toEqual({ memoryBytes: 15 * MIB, liveProcs: 2, cpuMs: 1000 });
    // 11 is a zombie now (not owned as live) and 10 has not waited for it yet: 11's CPU is not lost
    // for good, and the total does not drop meanwhile.
    const second = update(meter, [member(10, 1, 500, { rssBytes: 10 * MIB }), member(11, 10, 500, { state: 'Z' })]);
    expect(second).toEqual({ memoryBytes: 10 * MIB, liveProcs: 1, cpuMs: 1000 });
  });
});

describe('limit checker', () => {
  it('with a run cgroup: procs and CPU from its files, memory from memory.stat only with the memory controller', () => {
    // A directory standing in for a cgroup with the memory controller, which this machine's cgroup2 lacks.
    const dir = makeTempDir();
    try {
      writeFileSync(join(dir, 'cgroup.procs'), '10\n11\n12\n');
      writeFileSync(join(dir, 'cpu.stat'), 'usage_usec 2500000\nuser_usec 2000000\n');
      // Resident: anon + file_mapped; the 4 GiB of page cache (file) must not count.
      writeFileSync(join(dir, 'memory.stat'), `anon ${500 * MIB}\nfile ${4096 * MIB}\nfile_mapped ${100 * MIB}\n`);
      const limits = { maxMemoryBytes: 512 * MIB, maxProcs: 2, maxCpuSeconds: 2, idleTimeoutSeconds: 60 };
      const table = fakeTable([member(10, 1, 0)]);
      const owned = [{ pid: 10, startTime: 's10' }];
      const withMemory = createLimitChecker(limits, () => 0, { path: dir, controllers: ['memory', 'pids'] });
      expect(withMemory.methods).toEqual({
        'max-memory': 'memory.stat',
        'max-procs': 'cgroup.procs',
        'max-cpu': 'cpu.stat',
        'idle-timeout': 'output',
      });
      // The table shows one small process; the cgroup's exact numbers are what trip.
      expect(withMemory.check(table, owned)).toEqual({ name: 'max-memory', value: 512 * MIB, observed: 600 * MIB });
      const noMemory = createLimitChecker(limits, () => 0, { path: dir, controllers: [] });
      expect(noMemory.methods['max-memory']).toBe('polling');
      expect(noMemory.check(table, owned)).toEqual({ name: 'max-procs', value: 2, observed: 3 });
      const cpuOnly = createLimitChecker({ maxCpuSeconds: 2 }, () => 0, { path: dir, controllers: [] });
      expect(cpuOnly.check(null, [])).toEqual({ name: 'max-cpu', value: 2, observed: 2.5 });
      // A cgroup already gone reads as nothing: the table's numbers decide, and nothing trips falsely.
      const gone = createLimitChecker(limits, () => 0, { path: join(dir, 'gone'), controllers: ['memory'] });
      expect(gone.check(table, owned)).toBeNull();
    } finally {
      removeTempDir(dir);
    }
  });

  it('reports the first limit over its value, and the idle clock restarts on output', () => {
    let now = 0;
    const checker = createLimitChecker({ maxProcs: 1, idleTimeoutSeconds: 2 }, () => now);
    const one = [member(10, 1, 0)];
    expect(checker.check(fakeTable(one), [{ pid: 10, startTime: 's10' }])).toBeNull();
    now = 1500;
    checker.noteOutput();
    now = 3000;
    expect(checker.check(fakeTable(one), [{ pid: 10, startTime: 's10' }])).toBeNull();
    now = 3500;
    expect(checker.check(null, [])).toEqual({ name: 'idle-timeout', value: 2, observed: 2 });
    const two = [member(10, 1, 0), member(11, 10, 0)];
    const owned = two.map((p) => ({ pid: p.pid, startTime: `s${p.pid}` }));
    expect(checker.check(fakeTable(two), owned)).toEqual({ name: 'max-procs', value: 1, observed: 2 });
  });
});

describe('cgroup v2 probe', () => {
  const MOUNTINFO_HYBRID = '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n';
  const MOUNTINFO_UNIFIED = '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n';

  /** `files` are readable, `writable` dirs are ours, `present` paths exist; homes can be made where `homes` says. */
  function deps(
    files: Record<string, string>,
    writable: readonly string[],
    present: readonly string[],
    uid = 1000,
  ): CgroupProbeDeps & { made: string[] } {
    const made: string[] = [];
    return {
      readText: (path) => files[path] ?? null,
      isOwnWritableDir: (path) => writable.includes(path),
      exists: (path) => present.includes(path) || Object.hasOwn(files, path),
      ensureHome: (path) => {
        made.push(path);
        return writable.includes(path);
      },
      uid,
      made,
    };
  }

  it('finds the cgroup2 mount in mountinfo', () => {
    expect(findCgroup2Mount(MOUNTINFO_HYBRID)).toBe('/sys/fs/cgroup/unified');
    expect(findCgroup2Mount('22 1 0:21 / /proc rw - proc proc rw\n')).toBeNull();
  });

  it('uses the systemd --user delegation from inside it (a scope the user manager started), with its controllers', () => {
    const service = '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service';
    const probe = probeCgroup(
      deps(
        {
          '/proc/self/mountinfo': MOUNTINFO_UNIFIED,
          '/proc/self/cgroup': '0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-u7.scope\n',
          [`${service}/cgroup.controllers`]: 'cpu memory pids\n',
        },
        [service],
        [`${service}/cgroup.kill`],
      ),
    );
    expect(probe).toEqual({ available: true, path: service, controllers: ['cpu', 'memory', 'pids'] });
  });

  it('refuses the delegation from a login session scope: the kernel would not let the worker move in', () => {
    const service = '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service';
    const probe = probeCgroup(
      deps(
        {
          '/proc/self/mountinfo': MOUNTINFO_UNIFIED,
          '/proc/self/cgroup': '0::/user.slice/user-1000.slice/session-3.scope\n',
          [`${service}/cgroup.controllers`]: 'cpu memory pids\n',
        },
        [service],
        [`${service}/cgroup.kill`],
      ),
    );
    expect(probe).toEqual({
      available: false,
      reason:
        'no cgroup v2 directory under /sys/fs/cgroup is owned and writable by uid 1000; ' +
        `${service} is ours, but moving there from /user.slice/user-1000.slice/session-3.scope needs write access to ` +
        '/user.slice/user-1000.slice (start treewarden inside it, e.g. systemd-run --user --scope)',
    });
    expect(commonAncestor('/a/b', '/a/c/d')).toBe('/a');
    expect(commonAncestor('/', '/x')).toBe('/');
  });

  it('as root on a hybrid hierarchy, uses the cgroup2 mount once a child of ours shows cgroup.kill', () => {
    const mount = '/sys/fs/cgroup/unified';
    const home = `${mount}/treewarden`;
    const probeDeps = deps(
      {
        '/proc/self/mountinfo': MOUNTINFO_HYBRID,
        '/proc/self/cgroup': '0::/\n4:memory:/x\n',
        [`${mount}/cgroup.controllers`]: 'hugetlb\n',
      },
      [mount, home],
      [`${home}/cgroup.kill`],
      0,
    );
    expect(probeCgroup(probeDeps)).toEqual({ available: true, path: mount, controllers: ['hugetlb'] });
    expect(probeDeps.made).toEqual([home]);
  });

  it('refuses a writable parent whose children have no cgroup.kill (old kernel), naming it', () => {
    const own = '/sys/fs/cgroup/app.slice/me.scope';
    const probe = probeCgroup(
      deps(
        {
          '/proc/self/mountinfo': MOUNTINFO_UNIFIED,
          '/proc/self/cgroup': '0::/app.slice/me.scope',
          [`${own}/cgroup.controllers`]: 'cpu\n',
        },
        [own, `${own}/treewarden`],
        [],
      ),
    );
    expect(probe).toEqual({
      available: false,
      reason: `no cgroup v2 directory under /sys/fs/cgroup is owned and writable by uid 1000; ${own} is writable but has no cgroup.kill (kernel < 5.14)`,
    });
  });

  it('says why there is none when nothing is ours, or no cgroup2 is mounted', () => {
    const files = { '/proc/self/mountinfo': MOUNTINFO_HYBRID, '/proc/self/cgroup': '0::/\n' };
    expect(probeCgroup(deps(files, [], []))).toEqual({
      available: false,
      reason: 'no cgroup v2 directory under /sys/fs/cgroup/unified is owned and writable by uid 1000',
    });
    expect(probeCgroup(deps({ '/proc/self/mountinfo': '22 1 0:21 / /proc rw - proc proc rw\n' }, [], []))).toEqual({
      available: false,
      reason: 'no cgroup2 file system is mounted',
    });
  });
});
