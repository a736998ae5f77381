#!/usr/bin/env node
/**
 * `treewarden` entry point. `treewarden hook AGENT` runs inside an agent's hook budget (older
 * Claude Code kills SessionEnd hooks after 1.5 s), so it loads only the hook's few modules;
 * `treewarden mcp` lives as long as an agent session and `run`'s start-up delays every supervised
 * worker, so both run from tree-shaken bundles (rolldown.config.mjs); every other command loads
 * the command table (cli.ts), bundled too but for `serve` and `scenario`. Static imports would
 * load them all.
 */
const [name, ...rest] = process.argv.slice(2);
if (name === 'hook' && rest[0] !== '--help' && rest[0] !== '-h') {
  const { runHook } = await import('./hook-main.js');
  process.exit(await runHook(rest));
}
// Paths the compiler does not follow: the bundles are built after tsc, from tsc's output.
if (name === 'mcp') {
  const bundle: string = './bundle/mcp.js';
  const { runMcp } = (await import(bundle)) as typeof import('./mcp-main.js');
  process.exit(await runMcp(rest));
}
if (name === 'run') {
  const bundle: string = './bundle/run.js';
  const { runRun } = (await import(bundle)) as typeof import('./run-main.js');
  process.exit(await runRun(rest));
}
// `serve`, `export` (both start a host) and `scenario` run from tsc's output (see rolldown.config.mjs), every other command
// from the split command table: one engine copy per process either way.
const table: string = name === 'serve' || name === 'export' || name === 'scenario' ? './cli.js' : './bundle/cli/cli.js';
await import(table);
