/**
 * `treewarden mcp` runs from one tree-shaken bundle (rolldown.config.mjs) so that an idle server
 * holds little memory for a whole agent session. What the bundle must and must not carry, read
 * from the built file itself (npm test builds first), and the stand-ins that let it leave ajv out.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import AjvLeftOutOfTheBundle from '../src/mcp/no-ajv.js';
import { noElicitationValidator } from '../src/mcp/server.js';

const BUNDLE = fileURLToPath(new URL('../dist/bundle/mcp.js', import.meta.url));
/** A message of ajv's own `required` keyword: present wherever ajv's validators are. */
const AJV_SOURCE_MARK = 'must have required property';

describe('the MCP server bundle', () => {
  it('is built, and carries none of ajv (the package has it, the bundle does not)', () => {
    expect(existsSync(BUNDLE)).toBe(true);
    const ajvRequired = createRequire(import.meta.url).resolve('ajv/dist/vocabularies/validation/required.js');
    expect(readFileSync(ajvRequired, 'utf8')).toContain(AJV_SOURCE_MARK);
    const bundle = readFileSync(BUNDLE, 'utf8');
    expect(bundle).not.toContain(AJV_SOURCE_MARK);
    expect(bundle).toContain('AjvLeftOutOfTheBundle');
  });

  it('loads on its own, and finds the engine’s guardian and reaper through the package, not beside itself', () => {
    const script = `const m = await import(${JSON.stringify(BUNDLE)}); console.log('loaded', typeof m.runMcp);`;
    const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout.trim()).toBe('loaded function');
    // The same resolution the bundle inlines (runtime/engine-files.ts), checked against the files.
    const bundle = readFileSync(BUNDLE, 'utf8');
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
