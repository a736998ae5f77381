#!/usr/bin/env node
/**
 * `treewarden` entry point. `treewarden hook AGENT` runs inside an agent's hook budget (older
 * Claude Code kills SessionEnd hooks after 1.5 s), so it loads only the hook's few modules;
 * `treewarden mcp` lives as long as an agent session, so it too loads only its own modules;
 * every other command loads the command table (cli.ts). Static imports would load them all.
 */
const [name, ...rest] = process.argv.slice(2);
if (name === 'hook' && rest[0] !== '--help' && rest[0] !== '-h') {
  const { runHook } = await import('./hook-main.js');
  process.exit(await runHook(rest));
}
if (name === 'mcp') {
  const { runMcp } = await import('./mcp-main.js');
  process.exit(await runMcp(rest));
}
await import('./cli.js');
