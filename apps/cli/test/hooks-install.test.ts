/**
 * `treewarden hooks install|uninstall` on fixture settings files (HOME, CLAUDE_CONFIG_DIR and
 * CODEX_HOME point at temp dirs, never at the real ~/.claude): every other key and hook entry is
 * kept, twice is one entry, --dry-run writes nothing, uninstall removes exactly ours, and a file
 * that is not valid JSON is left byte for byte with exit 2 and the parse error named.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { builtHookCommand } from '../../../test-support/hooked-agent.js';
import { makeTempDir } from '../../../test-support/index.js';

beforeAll(() => assertBuilt());

/** Per test: up to three CLI start-ups on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 90_000;

const OTHER_HOOKS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: '/usr/local/bin/greet.sh' }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh', timeout: 5 }] }],
  },
};

function fixtureHome(settings?: string): { env: Record<string, string>; file: string } {
  const home = makeTempDir('tw-hooks-home-');
  const file = join(home, '.claude', 'settings.json');
  if (settings !== undefined) {
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(file, settings, { mode: 0o644 });
  }
  return { env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '' }, file };
}

function ourCommands(doc: { hooks?: Record<string, { hooks: { command: string }[] }[]> }, event: string): string[] {
  return (doc.hooks?.[event] ?? []).flatMap((group) => group.hooks.map((hook) => hook.command));
}

describe('treewarden hooks install|uninstall claude', () => {
  it(
    'merges SessionStart and SessionEnd into a file with other keys and hooks, once, and takes out only its own',
    async () => {
      const { env, file } = fixtureHome(JSON.stringify(OTHER_HOOKS, null, 2));
      const first = await runCli(['hooks', 'install', 'claude'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/added SessionStart hook: .* hook claude\n.*added SessionEnd hook/);
      const second = await runCli(['hooks', 'install', 'claude'], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/nothing to change/);
      const installed = JSON.parse(readFileSync(file, 'utf8'));
      expect(installed.model).toBe('opus');
      expect(installed.permissions).toEqual(OTHER_HOOKS.permissions);
      expect(installed.hooks.PreToolUse).toEqual(OTHER_HOOKS.hooks.PreToolUse);
      expect(ourCommands(installed, 'SessionStart')).toEqual(['/usr/local/bin/greet.sh', builtHookCommand()]);
      expect(ourCommands(installed, 'SessionEnd')).toEqual([builtHookCommand()]);
      expect(statSync(file).mode & 0o777).toBe(0o644);

      const removed = await runCli(['hooks', 'uninstall', 'claude'], env);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toMatch(/removed 1 SessionStart hook\n.*removed 1 SessionEnd hook/);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(OTHER_HOOKS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '--dry-run prints what it would change and writes nothing',
    async () => {
      const { env, file } = fixtureHome();
      const result = await runCli(['hooks', 'install', 'claude', '--dry-run'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/would add SessionStart hook/);
      expect(() => statSync(file)).toThrow();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'leaves a file that is not valid JSON untouched, exit 2, the parse error named',
    async () => {
      const broken = '{ "model": "opus", // a comment\n}';
      const { env, file } = fixtureHome(broken);
      const result = await runCli(['hooks', 'install', 'claude'], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /settings\.json: not valid JSON: .+ \(claude reads strict JSON: comments are not allowed\); nothing changed/,
      );
      expect(readFileSync(file, 'utf8')).toBe(broken);
      const shape = fixtureHome('{"hooks": []}');
      const wrong = await runCli(['hooks', 'uninstall', 'claude'], shape.env);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/"hooks" is not an object; nothing changed/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'writes Codex hooks.json under CODEX_HOME, and refuses an unknown scope',
    async () => {
      const { env } = fixtureHome();
      const codexHome = makeTempDir('tw-codex-home-');
      const result = await runCli(['hooks', 'install', 'codex'], { ...env, CODEX_HOME: codexHome });
      expect(result.code, result.stderr).toBe(0);
      const doc = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'));
      expect(ourCommands(doc, 'SessionEnd')).toEqual([builtHookCommand('codex')]);
      const usage = await runCli(['hooks', 'install', 'claude', '--scope', 'team'], env);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--scope "team" is not user or project/);
    },
    TEST_TIMEOUT_MS,
  );
});
