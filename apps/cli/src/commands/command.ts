/** What every `treewarden` subcommand provides to the dispatcher in main.ts. */
export interface CliCommand {
  /** One line for `treewarden --help`. */
  readonly summary: string;
  /** The synopsis printed with usage errors and `treewarden CMD --help`. */
  readonly usage: string;
  /** Runs the command with the arguments after its name; resolves with the exit status. */
  main(argv: readonly string[]): Promise<number>;
}

/** A bad invocation: main.ts prints the message and the usage, then exits EXIT_USAGE. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
