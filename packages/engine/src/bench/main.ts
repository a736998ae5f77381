/**
 * `npm run bench`: runs each benchmark section in turn and prints one markdown report. Not a test;
 * numbers depend on the machine and on what else runs on it.
 */
import { cpus } from 'node:os';
import { runAgentBench } from './agent-bench.js';
import { runKillBench } from './kill-bench.js';
import { runPortBench } from './port-bench.js';
import { runTableBench } from './table-bench.js';

type Section = () => Promise<string>;

/** `node dist/bench/main.js [SECTION…]` runs only the named sections (table, kill, ports, agents); none runs all. */
const SECTIONS: Readonly<Record<string, readonly [string, Section]>> = {
  table: ['Process table', runTableBench],
  kill: ['Tree kill', () => runKillBench()],
  ports: ['Ports', runPortBench],
  agents: ['Agent sessions', runAgentBench],
};

async function runSection(title: string, section: Section): Promise<string> {
  const started = Date.now();
  const body = await section();
  return `### ${title}\n\n${body}\n\n_${title}: ${((Date.now() - started) / 1000).toFixed(1)} s_`;
}

async function main(): Promise<void> {
  const machine = `${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}`;
  console.log(`## Treewarden benchmark\n\n${machine}, ${new Date().toISOString()}\n`);
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => SECTIONS[name] === undefined);
  if (unknown.length > 0)
    throw new Error(`unknown bench section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  const names = asked.length > 0 ? asked : Object.keys(SECTIONS);
  for (const name of names) {
    const [title, section] = SECTIONS[name] as readonly [string, Section];
    console.log(`\n${await runSection(title, section)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
