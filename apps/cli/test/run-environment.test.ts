/**
 * `run` under a huge environment: every variable reaches the worker unchanged, through the CLI's
 * linear copy (/proc/self/environ), the lease's start message and the guardian's launch (which no
 * longer lays its own `process.env` under the holder's). How long it takes is the bench's job
 * (`npm run bench -- env`), not a test's.
 */
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, CLI_RUN_TIMEOUT_MS, collectOutput } from '../../../test-support/cli-helpers.js';
import { makeTempDir, removeTempDir, useProcessTracker } from '../../../test-support/index.js';

const MANY = 20_000;

describe('run with a huge environment', () => {
  const tracker = useProcessTracker();
  beforeAll(assertBuilt);

  it(`passes all ${MANY.toLocaleString('en-US')} variables, and odd values, to the worker unchanged`, async () => {
    const stateDir = makeTempDir();
    try {
      const env: Record<string, string> = {};
      for (const key in process.env) {
        const value = process.env[key];
        if (value !== undefined) env[key] = value;
      }
      env.TREEWARDEN_HOME = stateDir;
      env.TW_ODD = 'a=b c\tzoë';
      for (let i = 0; i < MANY; i += 1) env[`TW_ENV_VAR_${i}`] = `value-${i}`;
      const worker = 'env | grep -c "^TW_ENV_VAR_"; printf "%s|%s\\n" "$TW_ODD" "$TW_ENV_VAR_19999"';
      const child = spawn(process.execPath, [CLI_MAIN, 'run', '--timeout', '60', '--', 'sh', '-c', worker], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tracker.trackChild(child);
      const result = await collectOutput(child, {
        description: 'treewarden run under a huge environment',
        timeoutMs: CLI_RUN_TIMEOUT_MS,
        killOnTimeout: true,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${MANY}\na=b c\tzoë|value-${MANY - 1}\n`);
    } finally {
      removeTempDir(stateDir);
    }
  });
});
