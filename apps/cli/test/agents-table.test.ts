/**
 * docs/AGENTS.md's agent table is generated from test:agents' last result: the committed table must
 * be what `node tools/agents/table.mjs --write` makes of tools/agents/last-result.json.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test-support/index.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const TABLE = join(REPO, 'tools', 'agents', 'table.mjs');
const DOC = join(REPO, 'docs', 'AGENTS.md');
const RESULT = join(REPO, 'tools', 'agents', 'last-result.json');

function table(...args: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [TABLE, ...args], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

describe('the agent table in docs/AGENTS.md', () => {
  it('is the one last-result.json gives', () => {
    const check = table('--check');
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('is told apart from a result it was not made from, and --write mends it', () => {
    const dir = makeTempDir();
    const doc = join(dir, 'AGENTS.md');
    const result = join(dir, 'last-result.json');
    copyFileSync(DOC, doc);
    const changed = JSON.parse(readFileSync(RESULT, 'utf8')) as { results: { version: string }[] };
    const first = changed.results[0];
    if (first === undefined) throw new Error('last-result.json lists no agent');
    first.version = `${first.version}-not-run`;
    writeFileSync(result, JSON.stringify(changed));
    const check = table('--check', '--doc', doc, '--result', result);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('the agent table differs');
    expect(table('--write', '--doc', doc, '--result', result).status).toBe(0);
    expect(table('--check', '--doc', doc, '--result', result).status).toBe(0);
    expect(readFileSync(doc, 'utf8')).toContain(`| ${first.version} |`);
  });
});
