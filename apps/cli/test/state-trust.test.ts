/**
 * The CLI and an untrusted or damaged state dir: a state dir other users can enter is refused by
 * every command that uses it, with the fix on stderr and exit 2, and nothing is written; one
 * malformed lease file is reported by `orphans` on stderr while the scan itself still works.
 */
import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { makeTempDir } from '../../../test-support/index.js';
import { EXIT_OK, EXIT_USAGE } from '../src/exit-codes.js';

const CLI_TEST_TIMEOUT_MS = 60_000;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = makeTempDir('tw-cli-trust-');
  homes.push(dir);
  return dir;
}

describe('treewarden and the state dir', () => {
  beforeAll(assertBuilt);

  it(
    'refuses a state dir with mode 0755 in every command, says how to fix it, exits 2, writes nothing',
    async () => {
      const root = home();
      chmodSync(root, 0o755);
      const commands = [['history'], ['orphans'], ['orphans', '--clean'], ['run', '--timeout', '5', '--', 'true']];
      for (const args of commands) {
        const result = await runCli(args, { TREEWARDEN_HOME: root });
        expect(result.code, `treewarden ${args.join(' ')}`).toBe(EXIT_USAGE);
        expect(result.stderr).toContain(`its mode 755 lets other users in; chmod 700 ${root}`);
        expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      }
      expect(readdirSync(root)).toEqual([]);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'reports a malformed lease file on its own and still scans for orphans',
    async () => {
      const paths = ensureStateDir(home());
      writeFileSync(join(paths.leasesDir, 'bad.json'), '{"v":1,"id":"bad"}', { mode: 0o600 });
      const result = await runCli(['orphans', '--json'], { TREEWARDEN_HOME: paths.root });
      expect(result.code).toBe(EXIT_OK);
      expect(result.stderr).toMatch(/skipped lease file .*bad\.json: not a lease file/);
      expect(JSON.parse(result.stdout)).toHaveProperty('groups');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
