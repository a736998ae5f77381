/**
 * `npm run bench`: runs each benchmark section in turn and prints one markdown report. Not a test;
 * numbers depend on the machine and on what else runs on it.
 */
import { cpus } from 'node:os';
import { runTableBench } from './table-bench.js';

type Section = () => Promise<string>;

/**
 * The kill section lives in kill-bench.ts; it is imported by a computed specifier so this file
 * builds and runs (skipping that section with a note) when kill-bench is absent.
 */
async function loadKillBench(): Promise<Section | string> {
  const specifier = './kill-bench.js';
  try {
    const module: unknown = await import(specifier);
    const run = (module as { runKillBench?: unknown }).runKillBench;
    return typeof run === 'function'
      ? (run as Section)
      : '_Kill benchmark skipped: kill-bench.js exports no runKillBench._';
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `_Kill benchmark skipped: could not load kill-bench.js (${reason})._`;
  }
}

async function runSection(title: string, section: Section | string): Promise<string> {
  const started = Date.now();
  const body = typeof section === 'string' ? section : await section();
  return `### ${title}\n\n${body}\n\n_${title}: ${((Date.now() - started) / 1000).toFixed(1)} s_`;
}

async function main(): Promise<void> {
  const machine = `${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}`;
  console.log(`## Treewarden benchmark\n\n${machine}, ${new Date().toISOString()}\n`);
  console.log(await runSection('Process table', runTableBench));
  console.log(`\n${await runSection('Tree kill', await loadKillBench())}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
