/** What every `treewarden` subcommand provides to the command table in cli.ts (main.ts only picks which built file loads it). */
export interface CliCommand {
  /** One line for `treewarden --help`. */
  readonly summary: string;
  /** The synopsis printed with usage errors and `treewarden CMD --help`. */
  readonly usage: string;
  /** Runs the command with the arguments after its name; resolves with the exit status. */
  main(argv: readonly string[]): Promise<number>;
}

const USAGE_ERROR_CODE = 'TREEWARDEN_USAGE';

/** A bad invocation: the command runner prints the message and the usage, then exits EXIT_USAGE. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = USAGE_ERROR_CODE;
}

/**
 * True for a UsageError, also one thrown by another copy of this module: the command table runs
 * bundled, while `serve` and `scenario` (and the args module they import) run from dist.
 */
export function isUsageError(error: unknown): error is UsageError {
  return error instanceof Error && (error as { code?: unknown }).code === USAGE_ERROR_CODE;
}
