/**
 * `treewarden mcp` and `run` start from tree-shaken bundles (apps/cli/rolldown.config.mjs), and so
 * do the engine's guardian and reaper (packages/engine/rolldown.config.mjs): an idle MCP server
 * holds little memory for a whole agent session, and a run's start waits for less. What the
 * bundles must and must not carry, read from the built files (npm test builds first), and the
 * stand-ins that let the MCP server leave ajv out. Every MCP, run and hook test runs them for real.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARDIAN_ENTRY, REAPER_ENTRY } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
import { isUsageError, UsageError } from '../src/commands/command.js';
import AjvLeftOutOfTheBundle from '../src/mcp/no-ajv.js';
import { noElicitationValidator } from '../src/mcp/server.js';

const BUNDLE = fileURLToPath(new URL('../dist/bundle/mcp.js', import.meta.url));
const RUN_BUNDLE = fileURLToPath(new URL('../dist/bundle/run.js', import.meta.url));
/** The MCP server's bundle: one file, sharing no chunk with `run`'s. */
function bundleText(): string {
  return readFileSync(BUNDLE, 'utf8');
}
/** A message of ajv's own `required` keyword: present wherever ajv's validators are. */
const AJV_SOURCE_MARK = 'must have required property';

describe('the MCP server bundle', () => {
  it('is built, and carries none of ajv (the package has it, the bundle does not)', () => {
    expect(existsSync(BUNDLE)).toBe(true);
    const ajvRequired = createRequire(import.meta.url).resolve('ajv/dist/vocabularies/validation/required.js');
    expect(readFileSync(ajvRequired, 'utf8')).toContain(AJV_SOURCE_MARK);
    const bundle = bundleText();
    expect(bundle).not.toContain(AJV_SOURCE_MARK);
    expect(bundle).toContain('AjvLeftOutOfTheBundle');
  });

  it('loads on its own, as does run’s, and finds the engine’s guardian and reaper through the package', () => {
    for (const [file, entry] of [
      [BUNDLE, 'runMcp'],
      [RUN_BUNDLE, 'runRun'],
    ] as const) {
      const script = `const m = await import(${JSON.stringify(file)}); console.log('loaded', typeof m.${entry});`;
      const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(loaded.stderr).toBe('');
      expect(loaded.stdout.trim()).toBe('loaded function');
    }
    // The engine's own entries are its bundles, built, under the engine package (not beside a bundle).
    expect(GUARDIAN_ENTRY).toMatch(/packages\/engine\/dist\/bundle\/guardian\.js$/);
    expect(REAPER_ENTRY).toMatch(/packages\/engine\/dist\/bundle\/reaper\.js$/);
    expect(existsSync(GUARDIAN_ENTRY) && existsSync(REAPER_ENTRY)).toBe(true);
    // The same resolution the bundle inlines (runtime/engine-files.ts), checked against the files.
    const bundle = bundleText();
    expect(bundle).toContain('resolve("@treewarden/engine/package.json")');
    expect(bundle).not.toMatch(/new URL\("\.\.\/[^"]*(guardian|reaper)-main\.js", import\.meta\.url\)/);
  });

  it('refuses, with its reason, any schema validation an elicitation would need', () => {
    const validate = noElicitationValidator.getValidator({ type: 'object' });
    expect(validate({ anything: 1 })).toEqual({
      valid: false,
      data: undefined,
      errorMessage: expect.stringContaining('does not elicit'),
    });
    expect(() => new AjvLeftOutOfTheBundle()).toThrow(/jsonSchemaValidator/);
  });
});

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const RECORD_MODULES = fileURLToPath(new URL('./fixtures/record-modules.mjs', import.meta.url));
const ENGINE_DIST = fileURLToPath(new URL('../../../packages/engine/dist/', import.meta.url));

/** The files `treewarden ARGS…` loads, and how it exited. */
function modulesLoadedBy(args: readonly string[]): { files: string[]; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'tw-modules-'));
  try {
    const log = join(dir, 'modules.log');
    const ran = spawnSync(process.execPath, ['--import', RECORD_MODULES, MAIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, TREEWARDEN_TEST_MODULE_LOG: log, XDG_STATE_HOME: dir },
    });
    const files = existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((url) => fileURLToPath(url))
      : [];
    return { files, status: ran.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the command table', () => {
  it('runs every command but serve and scenario from its bundle: no engine module from dist', () => {
    for (const args of [['kill', '--help'], ['ps', '--help'], ['orphans', '--help'], ['--help']]) {
      const { files, status } = modulesLoadedBy(args);
      expect(status, args.join(' ')).toBe(0);
      expect(
        files.some((file) => file.includes('/dist/bundle/cli/')),
        args.join(' '),
      ).toBe(true);
      expect(
        files.filter((file) => file.startsWith(ENGINE_DIST)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('runs serve and scenario from dist, where the host and the scenarios find their files', () => {
    for (const args of [
      ['serve', '--help'],
      ['scenario', 'list'],
    ]) {
      const { files, status } = modulesLoadedBy(args);
      expect(status, args.join(' ')).toBe(0);
      expect(files, args.join(' ')).toContain(fileURLToPath(new URL('../dist/cli.js', import.meta.url)));
      expect(
        files.some((file) => file.includes('/dist/bundle/')),
        args.join(' '),
      ).toBe(false);
    }
  });

  it('knows a usage error thrown by another copy of its module (dist beside a bundle)', () => {
    const foreign = Object.assign(new Error('bad flag'), { code: new UsageError('x').code });
    expect(isUsageError(foreign)).toBe(true);
    expect(isUsageError(new Error('bad flag'))).toBe(false);
  });
});
