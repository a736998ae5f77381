/** The agents test:agents runs: pinned package, launcher, how to give it a stdio MCP server. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const AGENTS = [
  {
    id: 'codex',
    name: 'Codex',
    pkg: '@openai/codex',
    version: '0.169.0',
    bin: 'codex',
    launch: 'codex exec "…" (npm .bin launcher → vendor binary)',
    args: ['exec', '--skip-git-repo-check', 'say hello'],
    env: {},
    configure({ home, wrapper }) {
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(
        join(home, '.codex', 'config.toml'),
        `[mcp_servers.leaky]\ncommand = ${JSON.stringify(wrapper)}\nargs = []\n`,
      );
    },
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
    launch: 'gemini -p "…" (npm .bin launcher, relaunched child; dummy GEMINI_API_KEY)',
    args: ['-p', 'say hello'],
    // Without any key it exits (41) before starting MCP servers; a dummy one (the network is unreachable) does not.
    env: { GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'tw-dummy-key' },
    configure({ home, wrapper }) {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({ mcpServers: { leaky: { command: wrapper, args: [] } } }),
      );
    },
  },
  {
    id: 'kilo',
    name: 'Kilo',
    pkg: '@kilocode/cli',
    version: '7.7.7',
    bin: 'kilo',
    launch: 'kilo run "…" (npm .bin launcher → bin/.kilo)',
    args: ['run', 'say hello'],
    env: {},
    configure({ project, wrapper }) {
      const config = JSON.stringify({ mcp: { leaky: { type: 'local', command: [wrapper], enabled: true } } });
      writeFileSync(join(project, 'kilo.json'), config);
      writeFileSync(join(project, 'opencode.json'), config);
    },
  },
  {
    id: 'copilot',
    name: 'GitHub Copilot CLI',
    pkg: '@github/copilot',
    version: '1.0.102',
    bin: 'copilot',
    launch: 'copilot (its TUI in a terminal; npm .bin loader → native copilot)',
    // `copilot -p` without login exits before MCP; the TUI starts them before trust and login.
    args: [],
    tty: true,
    env: {},
    configure({ home, wrapper }) {
      mkdirSync(join(home, '.copilot'), { recursive: true });
      writeFileSync(
        join(home, '.copilot', 'mcp-config.json'),
        JSON.stringify({ mcpServers: { leaky: { type: 'local', command: wrapper, args: [], tools: ['*'] } } }),
      );
    },
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    pkg: 'opencode-ai',
    version: '1.18.33',
    bin: 'opencode',
    launch: 'opencode run "…" (native npm .bin)',
    args: ['run', 'say hello'],
    env: {},
    configure({ project, wrapper }) {
      writeFileSync(
        join(project, 'opencode.json'),
        JSON.stringify({ mcp: { leaky: { type: 'local', command: [wrapper], enabled: true } } }),
      );
    },
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.328',
    bin: 'claude',
    launch: 'claude -p "…" (project-local node_modules/.bin/claude)',
    args: ['-p', 'say hello'],
    env: {},
    configure({ home, wrapper }) {
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({ mcpServers: { leaky: { type: 'stdio', command: wrapper, args: [] } } }),
      );
    },
  },
  {
    // A background session (`claude --bg`): the command returns at once; a daemon (ppid 1, its own
    // session) and its workers run the session, whose MCP server carries CLAUDE_CODE_SESSION_ID.
    // Its leftovers come from the daemon dying with the session running (SIGKILL: a crash, the
    // OOM killer), which leaves every worker and server (anthropics/claude-code#87891); a daemon
    // that exits on its own ends them. Needs a trusted folder; starts offline without login.
    id: 'claude-code-bg',
    name: 'Claude Code --bg',
    sessionAgent: 'claude-code',
    background: true,
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.328',
    bin: 'claude',
    launch: 'claude --bg "…" (daemon and workers, trusted folder; the daemon SIGKILLed)',
    args: ['--bg', 'say hello'],
    env: {},
    configure({ home, project, wrapper }) {
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({
          projects: { [project]: { hasTrustDialogAccepted: true } },
          mcpServers: { leaky: { type: 'stdio', command: wrapper, args: [] } },
        }),
      );
    },
  },
  {
    id: 'qwen-code',
    name: 'Qwen Code',
    pkg: '@qwen-code/qwen-code',
    version: '0.24.4',
    bin: 'qwen',
    launch: 'qwen "…" (npm .bin launcher)',
    args: ['say hello'],
    env: {},
    configure({ home, wrapper }) {
      mkdirSync(join(home, '.qwen'), { recursive: true });
      writeFileSync(
        join(home, '.qwen', 'settings.json'),
        JSON.stringify({ mcpServers: { leaky: { command: wrapper, args: [] } } }),
      );
    },
  },
  {
    id: 'droid',
    name: 'Factory Droid',
    pkg: '@factory/cli',
    version: '0.225.1',
    bin: 'droid',
    platformPackage: `@factory/cli-${process.platform}-${process.arch}`,
    launch: 'droid exec (npm .bin launcher)',
    args: ['exec', 'hello'],
    env: {},
    configure() {},
  },
];
