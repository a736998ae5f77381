/**
 * `treewarden mcp` and `run` start from tree-shaken bundles (apps/cli/rolldown.config.mjs), and so
 * do the engine's guardian and reaper (packages/engine/rolldown.config.mjs): an idle MCP server
 * holds little memory for a whole agent session, and a run's start waits for less. What the
 * bundles must and must not carry, read from the built files (npm test builds first), and the
 * stand-ins that let the MCP server leave ajv out. Every MCP, run and hook test runs them for real.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { GUARDIAN_ENTRY, REAPER_ENTRY } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
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
