#!/usr/bin/env node
/**
 * `treewarden` entry point. `treewarden hook AGENT` runs inside an agent's hook budget (older
 * Claude Code kills SessionEnd hooks after 1.5 s), so it loads only the hook's few modules;
 * `treewarden mcp` lives as long as an agent session, so it runs from its tree-shaken bundle
 * (rolldown.config.mjs: what it loads stays resident for hours);
 * every other command loads the command table (cli.ts). Static imports would load them all.
 */
const [name, ...rest] = process.argv.slice(2);
if (name === 'hook' && rest[0] !== '--help' && rest[0] !== '-h') {
  const { runHook } = await import('./hook-main.js');
  process.exit(await runHook(rest));
}
if (name === 'mcp') {
  // A path the compiler does not follow: the bundle is built after tsc, from tsc's output.
  const bundle: string = './bundle/mcp.js';
  const { runMcp } = (await import(bundle)) as typeof import('./mcp-main.js');
  process.exit(await runMcp(rest));
}
await import('./cli.js');
