/**
 * `npm run bench`: runs each benchmark section in turn and prints one markdown report. Not a test;
 * numbers depend on the machine and on what else runs on it.
 */
import { cpus } from 'node:os';
import { runKillBench } from './kill-bench.js';
import { runTableBench } from './table-bench.js';

type Section = () => Promise<string>;

async function runSection(title: string, section: Section): Promise<string> {
  const started = Date.now();
  const body = await section();
  return `### ${title}\n\n${body}\n\n_${title}: ${((Date.now() - started) / 1000).toFixed(1)} s_`;
}

async function main(): Promise<void> {
  const machine = `${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}`;
  console.log(`## Treewarden benchmark\n\n${machine}, ${new Date().toISOString()}\n`);
  console.log(await runSection('Process table', runTableBench));
  console.log(`\n${await runSection('Tree kill', () => runKillBench())}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
