/**
 * An untrusted state dir is refused before anything is read or written: group/other access, a
 * foreign owner (we run as root here: chown to nobody), a symlink in place of the dir, of a subdir
 * or of the ledger. Every consumer gets the StateDirError: the state tree, the ledger reader and
 * writer, the lease registry, the orphan finder and openLease (which then starts no guardian).
 */

import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GUARDIAN_ENTRY } from '../../src/lease/guardian-process.js';
import { openLease } from '../../src/lease/open-lease.js';
import { readLeaseRegistry } from '../../src/lease/registry.js';
import { appendLedgerRecord } from '../../src/ledger/append.js';
import { readLedger } from '../../src/ledger/read.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import { ensureStateDir, statePaths, verifyStateDir } from '../../src/state/state-dir.js';
import { isStateDirError, StateDirError } from '../../src/state/trust.js';
import { makeTempDir } from '../helpers/index.js';

const NOBODY_UID = 65534;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = makeTempDir('tw-trust-');
  dirs.push(dir);
  return dir;
}

const ENTRY = {
  kind: 'run_start',
  runId: 'run-x',
  command: 'x',
  args: [],
  cwd: '/',
  pid: null,
  startTime: null,
} as const;

interface Untrusted {
  readonly name: string;
  /** Builds the untrusted state dir inside `base`; returns its path. */
  make(base: string): string;
  readonly message: RegExp;
}

const UNTRUSTED: readonly Untrusted[] = [
  {
    name: 'a state dir with mode 0755',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(root, { mode: 0o700 });
      chmodSync(root, 0o755);
      return root;
    },
    message: /mode 755 lets other users in; chmod 700 /,
  },
  {
    name: 'a state dir owned by another user',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(root, { mode: 0o700 });
      chownSync(root, NOBODY_UID, NOBODY_UID);
      return root;
    },
    message: /owned by uid 65534, not by you/,
  },
  {
    name: 'a state dir that is a symlink',
    make: (base) => {
      const real = join(base, 'elsewhere');
      mkdirSync(real, { mode: 0o700 });
      const root = join(base, 'state');
      symlinkSync(real, root);
      return root;
    },
    message: /is a symbolic link; remove the symlink/,
  },
  {
    name: 'a leases/ subdir readable by others',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(join(root, 'leases'), { recursive: true, mode: 0o700 });
      chmodSync(join(root, 'leases'), 0o755);
      return root;
    },
    message: /leases: its mode 755 .*chmod 700/,
  },
  {
    name: 'a runs/ subdir that is a symlink',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(root, { mode: 0o700 });
      mkdirSync(join(base, 'elsewhere'), { mode: 0o700 });
      symlinkSync(join(base, 'elsewhere'), join(root, 'runs'));
      return root;
    },
    message: /runs: it is a symbolic link/,
  },
  {
    name: 'a ledger readable by others',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(root, { mode: 0o700 });
      writeFileSync(join(root, 'ledger.jsonl'), '', { mode: 0o644 });
      chmodSync(join(root, 'ledger.jsonl'), 0o644);
      return root;
    },
    message: /ledger\.jsonl: its mode 644 .*chmod 600/,
  },
  {
    name: 'a ledger that is a symlink',
    make: (base) => {
      const root = join(base, 'state');
      mkdirSync(root, { mode: 0o700 });
      writeFileSync(join(base, 'planted.jsonl'), '', { mode: 0o600 });
      symlinkSync(join(base, 'planted.jsonl'), join(root, 'ledger.jsonl'));
      return root;
    },
    message: /ledger\.jsonl: it is a symbolic link/,
  },
];

/** Every file and dir under `dir`, to prove a refusal wrote nothing. */
function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('state dir trust', () => {
  for (const untrusted of UNTRUSTED) {
    it(`refuses ${untrusted.name}, saying how to fix it, and writes nothing`, async () => {
      const base = scratch();
      const root = untrusted.make(base);
      const before = listTree(base);
      const paths = statePaths(root);
      const refusals: (() => unknown)[] = [
        () => verifyStateDir(root),
        () => ensureStateDir(root),
        () => readLeaseRegistry(paths),
        () => findOrphans({ paths, table: { entries: new Map(), readAtMs: 0 } }),
      ];
      for (const refuse of refusals) expect(refuse).toThrow(untrusted.message);
      await expect(openLease({ name: 'untrusted', stateDir: root })).rejects.toThrow(untrusted.message);
      expect(listTree(base)).toEqual(before);
    });
  }

  it('makes a guardian started on an untrusted state dir exit 2 with the fix, writing nothing', async () => {
    const root = join(scratch(), 'state');
    mkdirSync(root, { mode: 0o700 });
    chmodSync(root, 0o775);
    const config = { leaseId: 'lease-x', name: 'x', stateDir: root, holder: { pid: process.pid, startTime: '1' } };
    const guardian = spawn(process.execPath, [GUARDIAN_ENTRY, JSON.stringify(config)], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'ipc'],
    });
    let stderr = '';
    guardian.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => guardian.on('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(2);
    expect(stderr).toContain(`chmod 700 ${root}`);
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses the ledger file itself to the reader and the writer', () => {
    const base = scratch();
    writeFileSync(join(base, 'ledger.jsonl'), '', { mode: 0o600 });
    chmodSync(join(base, 'ledger.jsonl'), 0o640);
    expect(() => readLedger(join(base, 'ledger.jsonl'))).toThrow(StateDirError);
    expect(() => appendLedgerRecord(join(base, 'ledger.jsonl'), ENTRY)).toThrow(/chmod 600/);
    expect(statSync(join(base, 'ledger.jsonl')).size).toBe(0);
    const shared = join(base, 'shared');
    mkdirSync(shared, { mode: 0o700 });
    chmodSync(shared, 0o777);
    expect(() => appendLedgerRecord(join(shared, 'ledger.jsonl'), ENTRY)).toThrow(/chmod 700/);
    expect(existsSync(join(shared, 'ledger.jsonl'))).toBe(false);
  });

  it('creates a fresh state tree private: 0700 dirs, a 0600 ledger, whatever the umask', () => {
    const root = join(scratch(), 'fresh', 'state');
    const umask = process.umask(0);
    try {
      const paths = ensureStateDir(root);
      appendLedgerRecord(paths.ledgerFile, ENTRY);
      for (const dir of [paths.root, paths.leasesDir, paths.runsDir]) expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(paths.ledgerFile).mode & 0o777).toBe(0o600);
      expect(() => verifyStateDir(root)).not.toThrow();
    } finally {
      process.umask(umask);
    }
  });

  it('marks its error so callers across module copies can tell it from a crash', () => {
    const base = scratch();
    chmodSync(base, 0o750);
    let caught: unknown;
    try {
      verifyStateDir(base);
    } catch (error) {
      caught = error;
    }
    expect(isStateDirError(caught)).toBe(true);
    expect(isStateDirError(new Error('other'))).toBe(false);
  });
});
