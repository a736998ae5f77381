/**
 * Running one command once it is chosen: `--help`, then its main with the CLI's error handling
 * (usage errors and an untrusted state dir exit 2 with one line; anything else exits 1 with the
 * stack). Shared by the command table (cli.ts) and `run`'s own bundled entry (run-main.ts).
 */
import { endNativeThreads, isStateDirError } from '@treewarden/engine';
import { type CliCommand, isUsageError } from './commands/command.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { writeText } from './terminal-text.js';

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');
}

/** node:util parseArgs's message for an unknown `--help` or `-h`. */
const HELP_OPTION = /^Unknown option '(--help|-h)'/;

/** Runs the command; the process may exit once this resolves (its native threads have ended). */
export async function runChosenCommand(name: string, command: CliCommand, argv: readonly string[]): Promise<number> {
  try {
    return await runGuarded(name, command, argv);
  } finally {
    // A thread stopped by the exit while it defines a koffi binding aborts the process.
    await endNativeThreads();
  }
}

async function runGuarded(name: string, command: CliCommand, argv: readonly string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    await writeText(process.stdout, `usage: ${command.usage}\n`);
    return EXIT_OK;
  }
  try {
    return await command.main(argv);
  } catch (error) {
    // `--help` after a subcommand (`hooks install --help`) reaches the command's own parser, which
    // does not know it: it asked for the usage, so it gets it. A run's own command keeps its
    // `--help` (`run CMD --help`): arguments after the command are never parsed as options.
    if (isParseArgsError(error) && HELP_OPTION.test(error.message)) {
      await writeText(process.stdout, `usage: ${command.usage}\n`);
      return EXIT_OK;
    }
    if (isUsageError(error) || isParseArgsError(error)) {
      await writeText(process.stderr, `treewarden ${name}: ${error.message}\nusage: ${command.usage}\n`);
      return EXIT_USAGE;
    }
    // An untrusted state dir is the user's to fix (the message says how), not a crash.
    if (isStateDirError(error)) {
      await writeText(process.stderr, `treewarden ${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await writeText(process.stderr, `treewarden ${name}: ${message}\n`);
    return EXIT_FAILURE;
  }
}

/** A closed stdout/stderr (e.g. piped into `head`) must not crash the supervisor mid-run. */
export function ignoreClosedOutput(): void {
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
}
