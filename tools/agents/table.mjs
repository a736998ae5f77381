#!/usr/bin/env node
/** Prints the README's agent table from test:agents' last result (tools/agents/last-result.json). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = join(dirname(fileURLToPath(import.meta.url)), 'last-result.json');
const { results } = JSON.parse(readFileSync(file, 'utf8'));
const lines = ['| agent | version | launch | verified |', '|---|---|---|---|'];
for (const r of results) {
  const verified = r.skipped
    ? `skipped: ${r.skipped}`
    : r.ok
      ? `${r.verified} (leftover reported ${r.reportMs} ms after exit)`
      : 'failed';
  lines.push(`| ${r.name ?? r.agent} | ${r.version} | ${r.launch} | ${verified} |`);
}
console.log(lines.join('\n'));
