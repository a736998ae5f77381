#!/usr/bin/env node
/**
 * The agent table in docs/AGENTS.md, generated from test:agents' last result
 * (tools/agents/last-result.json) between the agents-table markers.
 *   node tools/agents/table.mjs           prints the table
 *   node tools/agents/table.mjs --write   rewrites it in docs/AGENTS.md
 *   node tools/agents/table.mjs --check   exits 1 when docs/AGENTS.md's table is not the result's
 * `--doc PATH` and `--result PATH` name other files (the unit test uses copies).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
export const START = '<!-- agents-table:start (node tools/agents/table.mjs --write) -->';
export const END = '<!-- agents-table:end -->';

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

function outcome(result) {
  if (result.skipped) return `skipped: ${result.skipped}`;
  if (result.ok)
    return `ok: session \`${result.session}\`, leftover reported ${result.reportMs} ms after exit${result.missed === undefined ? '' : ' (over the 1 s target)'}`;
  const why =
    result.error ?? (result.reportMs > 1000 ? `leftover reported ${result.reportMs} ms after exit` : 'failed');
  return `failed: ${why.replace(/^Error: /, '').split(';')[0]}`;
}

export function renderTable({ ranAt, results }) {
  const lines = ['| agent | version | launch | verified | result |', '|---|---|---|---|---|'];
  for (const r of results) {
    const verified = r.verified ?? ranAt.slice(0, 10);
    lines.push(
      `| ${cell(r.name ?? r.agent)} | ${cell(r.version)} | ${cell(r.launch)} | ${verified} | ${cell(outcome(r))} |`,
    );
  }
  return lines.join('\n');
}

/** The document with its table replaced (throws when the markers are missing). */
export function withTable(doc, table) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the agents-table markers are missing (${START} … ${END})`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

function main() {
  const { values } = parseArgs({
    options: {
      write: { type: 'boolean' },
      check: { type: 'boolean' },
      doc: { type: 'string', default: join(HERE, '..', '..', 'docs', 'AGENTS.md') },
      result: { type: 'string', default: join(HERE, 'last-result.json') },
    },
  });
  const table = renderTable(JSON.parse(readFileSync(values.result, 'utf8')));
  if (!values.write && !values.check) {
    console.log(table);
    return 0;
  }
  const doc = readFileSync(values.doc, 'utf8');
  const wanted = withTable(doc, table);
  if (values.write) {
    if (wanted !== doc) writeFileSync(values.doc, wanted);
    return 0;
  }
  if (wanted === doc) return 0;
  console.error(
    `${values.doc}: the agent table differs from ${values.result}; run node tools/agents/table.mjs --write`,
  );
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();
