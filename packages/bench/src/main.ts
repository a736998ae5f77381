/**
 * `npm run bench`: runs each benchmark section in turn and prints one markdown report. Not a test;
 * numbers depend on the machine and on what else runs on it.
 */
import { cpus } from 'node:os';
import { runAgentBench } from './agent-bench.js';
import { runAlertsBench } from './alerts-bench.js';
import { runContainerBench } from './container-bench.js';
import { runEnvBench } from './env-bench.js';
import { runExportBench } from './export-bench.js';
import { runFdBench } from './fd-bench.js';
import { runHooksBench } from './hooks-bench.js';
import { runKillBench } from './kill-bench.js';
import { runLimitsBench } from './limits-bench.js';
import { runMcpBench } from './mcp-bench.js';
import { runPortBench } from './port-bench.js';
import { runTableBench } from './table-bench.js';

type Section = () => Promise<string>;

async function runSection(title: string, section: Section): Promise<string> {
  const started = Date.now();
  const body = await section();
  return `### ${title}\n\n${body}\n\n_${title}: ${((Date.now() - started) / 1000).toFixed(1)} s_`;
}

const SECTIONS: Readonly<Record<string, readonly [title: string, section: Section]>> = {
  table: ['Process table', runTableBench],
  fds: ['Process table: fd and inotify counts', runFdBench],
  kill: ['Tree kill', () => runKillBench()],
  limits: ['Limits', runLimitsBench],
  ports: ['Ports', runPortBench],
  agents: ['Agent sessions', runAgentBench],
  alerts: ['Session alerts', runAlertsBench],
  mcp: ['MCP server', runMcpBench],
  env: ['Run start-up and the environment', runEnvBench],
  hooks: ['Session hooks', runHooksBench],
  export: ['Export (/metrics and OTLP)', runExportBench],
  containers: ['Containers', runContainerBench],
};

/** `main.js [SECTION…]`: only the named sections (table, fds, kill, limits, ports, agents, alerts, mcp, env, hooks, export, containers); all of them by default. */
async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0)
    throw new Error(`unknown bench section ${unknown.join(', ')}: choose from ${Object.keys(SECTIONS).join(', ')}`);
  const machine = `${process.platform} ${process.arch}, ${cpus().length} cores, Node ${process.version}`;
  console.log(`## Treewarden benchmark\n\n${machine}, ${new Date().toISOString()}\n`);
  for (const name of wanted.length > 0 ? wanted : Object.keys(SECTIONS)) {
    const [title, section] = SECTIONS[name] as readonly [string, Section];
    console.log(`\n${await runSection(title, section)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
