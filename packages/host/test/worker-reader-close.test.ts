/**
 * Closing the worker reader while its thread defines koffi bindings (the port reader defines its
 * own on the first port read) must not abort the process. `serve` died so under two busy loops:
 * SIGTERM → host.close() → worker.terminate() in the middle of the first port read's definitions
 * → "FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw", SIGABRT. The stand-in worker here
 * speaks the poll worker's protocol and spends a whole task defining structs, so a stop from
 * outside lands in a definition every time; the real reader is asked to end and is read between
 * tasks. Each case runs in a node child of its own, so an abort cannot take the runner with it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KOFFI_PATH, runNodeChild, useScratchDir } from '../../../test-support/native-child.js';

const HOST_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
/** How long the stand-in's port read defines bindings: far longer than a close takes to begin. */
const DEFINING_MS = 1_500;

const dir = useScratchDir('tw-reader-close-');

const workerFile = join(dir, 'defining-poll-worker.mjs');
writeFileSync(
  workerFile,
  `import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
const koffi = createRequire(import.meta.url)(${JSON.stringify(KOFFI_PATH)});
const marker = ${JSON.stringify(join(dir, 'defining'))};
let defined = 0;
parentPort.on('message', (message) => {
  if (message.kind === 'end') process.exit(0);
  writeFileSync(marker, String(message.id));
  for (const until = Date.now() + ${DEFINING_MS}; Date.now() < until; defined += 1)
    koffi.struct('tw_test_' + defined, { fd: 'int', events: 'short', revents: 'short', at: 'double' });
  parentPort.postMessage({ id: message.id, ok: false, error: 'a stand-in' });
});
`,
);

describe.skipIf(process.platform !== 'linux')('closing the worker reader', () => {
  it('waits for a thread in the middle of its definitions to end, and the process exits cleanly', () => {
    const script = `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
const { createWorkerTableReader } = await import(${JSON.stringify(HOST_DIST)});
const reader = createWorkerTableReader(new URL(${JSON.stringify(pathToFileURL(workerFile).href)}));
const ports = reader.readPorts(null);
while (!existsSync(${JSON.stringify(join(dir, 'defining'))})) await sleep(2);
const closing = Date.now();
await reader.close();
process.stdout.write(JSON.stringify({ ports: await ports, closedAfterMs: Date.now() - closing }));
process.exit(0);
`;
    // A file, not -e: a worker inherits --input-type, which it refuses for a file of its own.
    const scriptFile = join(dir, 'close-while-defining.mjs');
    writeFileSync(scriptFile, script);
    const child = runNodeChild([scriptFile]);
    expect({ status: child.status, signal: child.signal }, child.out).toEqual({ status: 0, signal: null });
    const result = JSON.parse(child.stdout) as { ports: unknown; closedAfterMs: number };
    // The read in flight is told "nothing" at once; close() returned once the thread had ended.
    expect(result.ports).toBeNull();
    expect(result.closedAfterMs).toBeGreaterThan(0);
  });
});
