/** The agents test:agents runs: pinned package, launcher, how to give it a stdio MCP server. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const AGENTS = [
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
    needsInstallScript: true,
    launch: 'droid exec (npm .bin launcher)',
    args: ['exec', 'hello'],
    env: {},
    configure() {},
  },
];
