/** Rules as data: the built-in file validates; a bad user file is reported and skipped, never fatal. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rootAgentOf } from '../../src/agents/rules/match.js';
import { builtinRulesFile, loadAgentRules, parseRulesText } from '../../src/agents/rules/rules.js';
import { fakeEntry, makeTempDir } from '../helpers/index.js';

const BUILTIN_AGENTS = [
  'claude-code',
  'codex',
  'gemini',
  'opencode',
  'goose',
  'cursor-agent',
  'aider',
  'amp',
  'qwen-code',
  'kilo',
  'copilot',
  'droid',
  'auggie',
];

function writeUserRules(root: string, name: string, text: string): void {
  mkdirSync(join(root, 'agent-rules'), { recursive: true, mode: 0o700 });
  writeFileSync(join(root, 'agent-rules', name), text, { mode: 0o600 });
}

function agentOfArgs(args: string[], root = makeTempDir()): string | null {
  const { rules } = loadAgentRules(root);
  return rootAgentOf(fakeEntry({ pid: 10, ppid: 1, pgid: 10, args }), rules)?.id ?? null;
}

describe('agent rules', () => {
  it('ships every built-in agent, validated by the schema', () => {
    expect(builtinRulesFile().agents.map((agent) => agent.id)).toEqual(BUILTIN_AGENTS);
    const { problems } = loadAgentRules(makeTempDir());
    expect(problems).toEqual([]);
  });

  it('recognises the real argv shapes of Claude Code and Codex roots', () => {
    expect(
      agentOfArgs(['/usr/bin/node', '/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/cli.js']),
    ).toBe('claude-code');
    expect(agentOfArgs(['/home/u/.local/share/claude/versions/2.1.197'])).toBe('claude-code');
    expect(agentOfArgs(['/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe', '--resume'])).toBe(
      'claude-code',
    );
    expect(
      agentOfArgs(['/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex', 'exec']),
    ).toBe('codex');
    expect(agentOfArgs(['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'])).toBe('codex');
    expect(agentOfArgs(['node', '/srv/app/cli.js'])).toBeNull();
    expect(agentOfArgs(['vim', 'claude'])).toBeNull();
  });

  it('reports and skips a user file that is not JSON, fails the schema, or holds a bad pattern; loads the rest', () => {
    const root = makeTempDir();
    writeUserRules(root, 'a-broken.json', '{ "version": 1, ');
    writeUserRules(
      root,
      'b-schema.json',
      JSON.stringify({ version: 1, agents: [{ id: 'X Y', name: 'x', roots: [], markers: [] }] }),
    );
    writeUserRules(
      root,
      'c-regex.json',
      JSON.stringify({ version: 1, agents: [{ id: 'bad', name: 'b', roots: [{ argv0: '(' }], markers: [] }] }),
    );
    writeUserRules(
      root,
      'd-good.json',
      JSON.stringify({
        version: 1,
        agents: [
          { id: 'my-agent', name: 'Mine', roots: [{ argv0: '(^|/)my-agent$' }], markers: [{ name: 'MY_AGENT' }] },
        ],
      }),
    );
    const { rules, problems } = loadAgentRules(root);
    expect(problems.map((problem) => problem.file.split('/').pop())).toEqual([
      'a-broken.json',
      'b-schema.json',
      'c-regex.json',
    ]);
    expect(problems[0]?.message).toMatch(/not JSON/);
    expect(problems[1]?.message).toMatch(/agents\.0\.id/);
    expect(problems[2]?.message).toMatch(/not a valid regular expression/);
    expect(rules.agents.map((agent) => agent.id)).toContain('my-agent');
    expect(agentOfArgs(['/opt/bin/my-agent'], root)).toBe('my-agent');
  });

  it('does not read rules another user could have written (a shared directory or file)', () => {
    const root = makeTempDir();
    const good = JSON.stringify({
      version: 1,
      agents: [{ id: 'mine', name: 'M', roots: [{ argv0: '^mine$' }], markers: [] }],
    });
    writeUserRules(root, 'shared.json', good);
    chmodSync(join(root, 'agent-rules', 'shared.json'), 0o644);
    const fileLevel = loadAgentRules(root);
    expect(fileLevel.problems[0]?.message).toMatch(/mode 644 lets other users in/);
    expect(fileLevel.rules.agents.map((agent) => agent.id)).not.toContain('mine');
    chmodSync(join(root, 'agent-rules'), 0o777);
    expect(loadAgentRules(root).problems[0]?.message).toMatch(/mode 777 lets other users in/);
  });

  it('refuses unknown keys rather than silently ignoring a typo', () => {
    expect(() => parseRulesText(JSON.stringify({ version: 1, agents: [], role: [] }))).toThrow(/invalid rules/);
  });
});
