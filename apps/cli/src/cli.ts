/**
 * The `treewarden` command table (loaded by main.ts for every command but `hook`): pick the
 * command, run it, exit with its status.
 * Adding a command = one file in commands/ exporting a CliCommand, plus one entry in COMMANDS.
 */
import { isStateDirError } from '@treewarden/engine';
import { writeOut } from './args.js';
import { type CliCommand, UsageError } from './commands/command.js';
import { freePortCommand } from './commands/free-port.js';
import { historyCommand } from './commands/history.js';
import { hooksCommand } from './commands/hooks.js';
import { killCommand } from './commands/kill.js';
import { mcpCommand } from './commands/mcp.js';
import { orphansCommand } from './commands/orphans.js';
import { portsCommand } from './commands/ports.js';
import { psCommand } from './commands/ps.js';
import { runCommand } from './commands/run.js';
import { scenarioCommand } from './commands/scenario.js';
import { serveCommand } from './commands/serve.js';
import { sessionsCommand } from './commands/sessions.js';
import { trimCommand } from './commands/trim.js';
import { watchCommand } from './commands/watch.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { HOOK_SUMMARY, HOOK_USAGE, runHook } from './hook-main.js';

const COMMANDS: Readonly<Record<string, CliCommand>> = {
  run: runCommand,
  ps: psCommand,
  kill: killCommand,
  serve: serveCommand,
  scenario: scenarioCommand,
  history: historyCommand,
  orphans: orphansCommand,
  ports: portsCommand,
  'free-port': freePortCommand,
  sessions: sessionsCommand,
  trim: trimCommand,
  watch: watchCommand,
  hooks: hooksCommand,
  mcp: mcpCommand,
  hook: { summary: HOOK_SUMMARY, usage: HOOK_USAGE, main: runHook },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `usage: treewarden COMMAND [ARGS…]\n\ncommands:\n${lines.join('\n')}\n\nrun "treewarden COMMAND --help" for a command's flags.\n`;
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await writeOut(name === undefined ? process.stderr : process.stdout, overview());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    await writeOut(process.stderr, `treewarden: unknown command "${name}"\n\n${overview()}`);
    return EXIT_USAGE;
  }
  if (rest[0] === '--help' || rest[0] === '-h') {
    await writeOut(process.stdout, `usage: ${command.usage}\n`);
    return EXIT_OK;
  }
  try {
    return await command.main(rest);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      await writeOut(process.stderr, `treewarden ${name}: ${error.message}\nusage: ${command.usage}\n`);
      return EXIT_USAGE;
    }
    // An untrusted state dir is the user's to fix (the message says how), not a crash.
    if (isStateDirError(error)) {
      await writeOut(process.stderr, `treewarden ${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await writeOut(process.stderr, `treewarden ${name}: ${message}\n`);
    return EXIT_FAILURE;
  }
}

// A closed stdout/stderr (e.g. piped into `head`) must not crash the supervisor mid-run.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

process.exit(await dispatch(process.argv.slice(2)));
