/**
 * `treewarden hooks install` against hostile or unlucky settings files, all real files in temp
 * dirs: a symlink to a character device (/dev/null, /dev/zero) or a FIFO is refused without
 * blocking and the device is untouched; a dangling symlink stays a link; a world-writable settings
 * dir is refused; root installing into another user's file keeps its owner and mode (and refuses a
 * directory that user owns); two concurrent installs into one file both land; every byte it does
 * not add is kept; a user's hook that merely mentions "treewarden hook claude" survives; a
 * read-only dir, a relative CLAUDE_CONFIG_DIR and /proc/self as HOME give one clear line, no stack.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, type CliResult, collectOutput, runCli } from '../../../test-support/cli-helpers.js';
import { builtHookCommand } from '../../../test-support/hooked-agent.js';
import { makeTempDir } from '../../../test-support/index.js';

beforeAll(() => assertBuilt());

const TEST_TIMEOUT_MS = 90_000;
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

function fixtureHome(): { home: string; dir: string; file: string; env: Record<string, string> } {
  const home = makeTempDir('tw-hooks-safety-');
  const dir = join(home, '.claude');
  mkdirSync(dir, { mode: 0o700 });
  return {
    home,
    dir,
    file: join(dir, 'settings.json'),
    env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', QWEN_HOME: '' },
  };
}

/** The CLI as uid/gid 65534 (setpriv), for what root's privileges would hide. */
function runCliAsNobody(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(
    'setpriv',
    ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', process.execPath, CLI_MAIN, ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return collectOutput(child, {
    description: `treewarden ${args.join(' ')} as nobody`,
    timeoutMs: 25_000,
    killOnTimeout: true,
  });
}

function expectRefusedCleanly(result: CliResult, reason: RegExp): void {
  expect(result.code, result.stdout).toBe(2);
  expect(result.stderr).toMatch(reason);
  expect(result.stderr).toMatch(/nothing changed\n$/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('hooks install refuses what is not a regular file in a trusted place', () => {
  it(
    'a symlink to /dev/null or /dev/zero is refused (with --dry-run too) and the device stays a device',
    async () => {
      for (const device of ['/dev/null', '/dev/zero']) {
        const before = statSync(device);
        const { file, env } = fixtureHome();
        symlinkSync(device, file);
        for (const args of [
          ['hooks', 'install', 'claude'],
          ['hooks', 'install', 'claude', '--dry-run'],
        ]) {
          const result = await runCli(args, env);
          expectRefusedCleanly(result, new RegExp(`${device} is a character device; only a regular file is edited`));
        }
        const after = statSync(device);
        expect(after.isCharacterDevice()).toBe(true);
        expect([after.ino, after.rdev, after.mode]).toEqual([before.ino, before.rdev, before.mode]);
        expect(readlinkSync(file)).toBe(device);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a FIFO is refused at once, install and --dry-run, and stays a FIFO',
    async () => {
      const { file, env } = fixtureHome();
      const made = spawn('mkfifo', [file], { stdio: 'ignore' });
      await new Promise((resolve) => made.on('close', resolve));
      for (const args of [
        ['hooks', 'install', 'claude'],
        ['hooks', 'install', 'claude', '--dry-run'],
      ]) {
        const started = Date.now();
        const result = await runCli(args, env);
        expectRefusedCleanly(result, /settings\.json is a FIFO; only a regular file is edited/);
        expect(Date.now() - started).toBeLessThan(20_000);
      }
      expect(lstatSync(file).isFIFO()).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a dangling symlink is refused and stays a symlink; no file appears at its target',
    async () => {
      const { dir, file, env } = fixtureHome();
      const missing = join(dir, 'gone', 'settings.json');
      symlinkSync(missing, file);
      const result = await runCli(['hooks', 'install', 'claude'], env);
      expectRefusedCleanly(result, /is a symbolic link whose target cannot be resolved/);
      expect(lstatSync(file).isSymbolicLink()).toBe(true);
      expect(() => lstatSync(missing)).toThrow();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a world-writable settings dir is refused, the file left as it was',
    async () => {
      const { dir, file, env } = fixtureHome();
      writeFileSync(file, '{"model":"opus"}\n', { mode: 0o600 });
      chmodSync(dir, 0o777);
      const result = await runCli(['hooks', 'install', 'claude'], env);
      expectRefusedCleanly(result, /\.claude is writable by other users \(mode 777\)/);
      expect(readFileSync(file, 'utf8')).toBe('{"model":"opus"}\n');

      // The same dir reached through a symlink (whose own mode is always 777): the real dir is judged.
      const linked = makeTempDir('tw-hooks-linked-');
      symlinkSync(dir, join(linked, '.claude'));
      const through = await runCli(['hooks', 'install', 'claude'], { ...env, HOME: linked });
      expectRefusedCleanly(through, new RegExp(`${dir} is writable by other users`));
      chmodSync(dir, 0o700);
      const trusted = await runCli(['hooks', 'install', 'claude'], { ...env, HOME: linked });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain(builtHookCommand('claude'));
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!isRoot)('hooks install as root into another user’s settings', () => {
  it(
    "keeps the file's owner and mode, so the owner still reads it; refuses a directory that user owns",
    async () => {
      const { file, env } = fixtureHome();
      writeFileSync(file, '{"model":"opus"}\n', { mode: 0o640 });
      chownSync(file, NOBODY, NOBODY);
      chmodSync(file, 0o640);
      const result = await runCli(['hooks', 'install', 'claude'], env);
      expect(result.code, result.stderr).toBe(0);
      const after = statSync(file);
      expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([NOBODY, NOBODY, 0o640]);
      expect(JSON.parse(readFileSync(file, 'utf8')).hooks.SessionEnd).toHaveLength(1);

      const theirs = fixtureHome();
      chownSync(theirs.dir, NOBODY, NOBODY);
      writeFileSync(theirs.file, '{}\n', { mode: 0o600 });
      chownSync(theirs.file, NOBODY, NOBODY);
      const refused = await runCli(['hooks', 'install', 'claude'], theirs.env);
      expectRefusedCleanly(refused, /\.claude is owned by uid 65534, not by you \(uid 0\) or root/);
      expect(readFileSync(theirs.file, 'utf8')).toBe('{}\n');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('hooks install edits only what it adds', () => {
  it(
    'two installs at once into one file (claude and gemini through a symlink) both land',
    async () => {
      for (let round = 0; round < 3; round += 1) {
        const { home, file, env } = fixtureHome();
        writeFileSync(file, '{"model":"opus"}\n', { mode: 0o600 });
        const geminiHome = makeTempDir('tw-hooks-gemini-');
        mkdirSync(join(geminiHome, '.gemini'), { mode: 0o700 });
        symlinkSync(file, join(geminiHome, '.gemini', 'settings.json'));
        const [claude, gemini] = await Promise.all([
          runCli(['hooks', 'install', 'claude'], env),
          runCli(['hooks', 'install', 'gemini'], { ...env, GEMINI_CLI_HOME: geminiHome }),
        ]);
        expect(claude.code, claude.stderr).toBe(0);
        expect(gemini.code, gemini.stderr).toBe(0);
        const text = readFileSync(file, 'utf8');
        expect(text).toContain(builtHookCommand('claude'));
        expect(text).toContain(builtHookCommand('gemini'));
        expect(JSON.parse(text).model).toBe('opus');
        expect(lstatSync(join(home, '.claude', 'settings.json')).isFile()).toBe(true);
      }
    },
    TEST_TIMEOUT_MS * 2,
  );

  it(
    'keeps big integers, 1e400, -0, duplicate keys and invalid UTF-8 byte for byte, and a look-alike user hook',
    async () => {
      const { file, env } = fixtureHome();
      const lookAlike = 'logger -t treewarden hook claude';
      const head = Buffer.from(
        `{\n  "big": 12345678901234567890123,\n  "huge": 1e400,\n  "neg": -0,\n  "dup": 1,\n  "dup": 2,\n  "name": "`,
        'latin1',
      );
      const tail = Buffer.from(
        `",\n  "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "${lookAlike}"}]}]}\n}\n`,
        'latin1',
      );
      const original = Buffer.concat([head, Buffer.from([0xff, 0xfe, 0x80]), tail]);
      writeFileSync(file, original, { mode: 0o600 });
      const installed = await runCli(['hooks', 'install', 'claude'], env);
      expect(installed.code, installed.stderr).toBe(0);
      const after = readFileSync(file);
      expect(after.includes(head)).toBe(true);
      expect(after.includes(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0x80])]))).toBe(true);
      expect(after.toString('latin1')).toContain(lookAlike);
      expect(after.toString('latin1')).toContain(builtHookCommand('claude'));

      const removed = await runCli(['hooks', 'uninstall', 'claude'], env);
      expect(removed.code, removed.stderr).toBe(0);
      const back = readFileSync(file);
      expect(back.includes(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0x80])]))).toBe(true);
      expect(back.toString('latin1')).toContain(lookAlike);
      expect(back.toString('latin1')).not.toContain(builtHookCommand('claude'));
    },
    TEST_TIMEOUT_MS,
  );
});

describe('hooks install names what is wrong in one line', () => {
  it(
    'a read-only settings dir (as an unprivileged user) gives a clear error, no stack trace',
    async () => {
      const { home, dir, file, env } = fixtureHome();
      writeFileSync(file, '{}\n', { mode: 0o644 });
      if (isRoot) {
        chownSync(home, NOBODY, NOBODY);
        chownSync(dir, NOBODY, NOBODY);
        chownSync(file, NOBODY, NOBODY);
      }
      chmodSync(dir, 0o555);
      const result = isRoot
        ? await runCliAsNobody(['hooks', 'install', 'claude'], env)
        : await runCli(['hooks', 'install', 'claude'], env);
      expectRefusedCleanly(result, /cannot (write in|create the lock) .*\.claude.*(EACCES|permission denied)/i);
      expect(readFileSync(file, 'utf8')).toBe('{}\n');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a relative CLAUDE_CONFIG_DIR is refused, not ignored; /proc/self as HOME is a clear error',
    async () => {
      const { env } = fixtureHome();
      const relative = await runCli(['hooks', 'install', 'claude'], { ...env, CLAUDE_CONFIG_DIR: 'my-claude' });
      expectRefusedCleanly(relative, /CLAUDE_CONFIG_DIR="my-claude" is a relative path/);
      const proc = await runCli(['hooks', 'install', 'claude'], { ...env, HOME: '/proc/self' });
      expectRefusedCleanly(proc, /cannot create \/proc\/self\/\.claude: ENOENT/);
    },
    TEST_TIMEOUT_MS,
  );
});
