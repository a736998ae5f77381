/**
 * `--help` is a request for the usage wherever the command's own parser meets it, also after a
 * subcommand; never an "Unknown option" error. A run's own command keeps its `--help`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { privateHome, removeTempDir } from '../../../test-support/index.js';

const homes: string[] = [];
function home(): Record<string, string> {
  const env = privateHome();
  homes.push(env.TREEWARDEN_HOME ?? '');
  return env;
}

describe('--help after a subcommand', () => {
  beforeAll(assertBuilt);
  afterAll(() => {
    for (const dir of homes.splice(0)) removeTempDir(dir);
  });

  it.each([[['hooks', 'install', '--help']], [['hooks', 'status', 'codex', '-h']], [['scenario', 'run', '--help']]])(
    'treewarden %s prints the usage and exits 0',
    async (args) => {
      const result = await runCli(args, home());
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.stdout).toMatch(new RegExp(`^usage: treewarden ${args[0]} `));
    },
  );

  it("passes a run's own --help to its command", async () => {
    const result = await runCli(['run', '--timeout', '30', 'sh', '-c', 'echo "got $1"', 'x', '--help'], home());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('got --help');
  });

  it('still refuses an unknown option, with the usage', async () => {
    const result = await runCli(['hooks', 'install', '--bogus'], home());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: treewarden hooks/);
  });
});
