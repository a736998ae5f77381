/**
 * `treewarden run`'s own entry, bundled (rolldown.config.mjs): its start-up is on every supervised
 * worker's critical path, and loading the engine as ~200 separate modules is most of it. The
 * command and its error handling are cli.ts's, through command-runner.ts.
 */
import { ignoreClosedOutput, runChosenCommand } from './command-runner.js';
import { runCommand } from './commands/run.js';

export function runRun(argv: readonly string[]): Promise<number> {
  ignoreClosedOutput();
  return runChosenCommand('run', runCommand, argv);
}
