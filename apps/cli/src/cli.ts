/**
 * The `treewarden` command table (loaded by main.ts for every command but `hook`): pick the
 * command, run it, exit with its status.
 * Adding a command = one file in commands/ exporting a CliCommand, plus one entry in COMMANDS.
 */

import { ignoreClosedOutput, runChosenCommand } from './command-runner.js';
import type { CliCommand } from './commands/command.js';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { HOOK_SUMMARY, HOOK_USAGE, runHook } from './hook-main.js';
import { writeText } from './terminal-text.js';

/**
 * Each command's module, loaded only when it runs: `serve` brings the host and its WebSocket
 * server, `scenario` the scenario catalogue, `mcp` the MCP SDK and its JSON-schema compiler, and
 * loading them all cost `run` (whose start-up is on every supervised worker's critical path)
 * about half a second before it could start its guardian. Only the overview loads every one.
 */
const COMMANDS: Readonly<Record<string, () => Promise<CliCommand>>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  ps: async () => (await import('./commands/ps.js')).psCommand,
  kill: async () => (await import('./commands/kill.js')).killCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  scenario: async () => (await import('./commands/scenario.js')).scenarioCommand,
  history: async () => (await import('./commands/history.js')).historyCommand,
  orphans: async () => (await import('./commands/orphans.js')).orphansCommand,
  ports: async () => (await import('./commands/ports.js')).portsCommand,
  'free-port': async () => (await import('./commands/free-port.js')).freePortCommand,
  sessions: async () => (await import('./commands/sessions.js')).sessionsCommand,
  trim: async () => (await import('./commands/trim.js')).trimCommand,
  watch: async () => (await import('./commands/watch.js')).watchCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  hooks: async () => (await import('./commands/hooks.js')).hooksCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  hook: async () => ({ summary: HOOK_SUMMARY, usage: HOOK_USAGE, main: runHook }),
};

async function overview(): Promise<string> {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((name) => name.length));
  const commands = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<CliCommand>)()));
  const lines = names.map((name, index) => `  ${name.padEnd(width)}  ${commands[index]?.summary ?? ''}`);
  return `usage: treewarden COMMAND [ARGS…]\n\ncommands:\n${lines.join('\n')}\n\nrun "treewarden COMMAND --help" for a command's flags.\n`;
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await writeText(name === undefined ? process.stderr : process.stdout, await overview());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) {
    await writeText(process.stderr, `treewarden: unknown command "${name}"\n\n${await overview()}`);
    return EXIT_USAGE;
  }
  return runChosenCommand(name, await load(), rest);
}

ignoreClosedOutput();
process.exit(await dispatch(process.argv.slice(2)));
