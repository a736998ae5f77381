/**
 * A thread defining koffi bindings, stopped from outside, aborts the whole process (see
 * native-threads.ts). Each case runs in a node child of its own: the abort must not take the test
 * runner with it. The thread here defines structs without pause, so a stop from outside lands in a
 * definition every time (30 of 30 such terminations aborted on this machine); it looks for the
 * owner's `end` between two definitions, as the real threads read theirs between tasks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  KOFFI_PATH,
  type NodeChildResult,
  runNodeChild,
  useScratchDir,
} from '../../../../test-support/native-child.js';

const ENGINE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
/** The thread ends on its own after this many definitions at most (if nobody stops it). */
const MAX_DEFINITIONS = 400_000;

const dir = useScratchDir('tw-native-threads-');

const workerFile = join(dir, 'defining-worker.cjs');
writeFileSync(
  workerFile,
  `const { writeFileSync } = require('node:fs');
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const koffi = require(workerData.koffi);
writeFileSync(workerData.marker, 'defining');
for (let i = 0; i < ${MAX_DEFINITIONS} && receiveMessageOnPort(parentPort) === undefined; i++)
  koffi.struct('tw_test_' + i, { fd: 'int', events: 'short', revents: 'short', at: 'double' });
`,
);

/** A child process that starts the thread, waits until it defines, then exits as `how` says. */
function runChild(how: 'end-first' | 'exit-at-once'): NodeChildResult {
  const marker = join(dir, `marker-${how}-${Date.now()}`);
  const script = `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
const engine = await import(${JSON.stringify(ENGINE_DIST)});
const worker = new Worker(${JSON.stringify(workerFile)}, { workerData: { koffi: ${JSON.stringify(KOFFI_PATH)}, marker: ${JSON.stringify(marker)} } });
let asked = 0;
const exited = engine.trackNativeThread(worker, () => { asked += 1; worker.postMessage('end'); });
const before = engine.liveNativeThreads();
while (!existsSync(${JSON.stringify(marker)})) await sleep(2);
if (${JSON.stringify(how)} === 'end-first') await engine.endNativeThreads();
let ended = false;
void exited.then(() => { ended = true; });
await Promise.resolve();
process.stdout.write(JSON.stringify({ before, after: engine.liveNativeThreads(), asked, ended }));
process.exit(0);
`;
  return runNodeChild(['--input-type=module', '-e', script]);
}

describe.skipIf(process.platform !== 'linux')('native threads', () => {
  it('a process exiting while its thread defines a koffi binding aborts (why the registry exists)', () => {
    // If this stops aborting, koffi (or node-addon-api) no longer fails so; the registry can go.
    const child = runChild('exit-at-once');
    expect(child.signal, child.out).toBe('SIGABRT');
    expect(child.out).toMatch(/FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw/);
  });

  it('ends a registered thread between two definitions before the process exits', () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const child = runChild('end-first');
      expect({ status: child.status, signal: child.signal }, child.out).toEqual({ status: 0, signal: null });
      // Asked once, exited, and gone from the registry.
      expect(JSON.parse(child.out)).toEqual({ before: 1, after: 0, asked: 1, ended: true });
    }
  });
});
