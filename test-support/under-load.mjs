#!/usr/bin/env node
/**
 * Runs the vitest suite with busy loops beside it, as on a machine where other work takes the
 * cores: a test that passes only on an idle machine fails here. Usage:
 *   node test-support/under-load.mjs [--loops N] [--repeat N] [vitest args…]
 * The busy loops are ended by the pids recorded here, whatever happens to the suite.
 */
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const args = process.argv.slice(2);
function takeOption(name, fallback) {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
}
const loops = takeOption('--loops', availableParallelism());
const repeat = takeOption('--repeat', 1);

const busy = [];
for (let i = 0; i < loops; i += 1) busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const endBusy = () => {
  for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.on('exit', endBusy);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    endBusy();
    process.exit(130);
  });
}

let failures = 0;
for (let round = 1; round <= repeat; round += 1) {
  console.log(`under load: round ${round}/${repeat}, ${loops} busy loop(s) (pids ${busy.map((c) => c.pid).join(' ')})`);
  const result = spawnSync('npx', ['vitest', 'run', ...args], { stdio: 'inherit' });
  if (result.status !== 0) failures += 1;
}
endBusy();
console.log(`under load: ${repeat - failures} passed, ${failures} failed (rounds)`);
process.exitCode = failures === 0 ? 0 : 1;
