/**
 * Reads the worker's piped stdout/stderr: always consumed (a full pipe would block the worker),
 * kept only as bounded tails, optionally forwarded to our own stdout/stderr (`tee`).
 */
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { createOutputTail, type OutputTail } from './output-tail.js';

/** After the root exited (and leftovers were ended), how long to wait for the pipes to drain. */
export const OUTPUT_DRAIN_MS = 2000;

export type StreamName = 'stdout' | 'stderr';

export interface CapturedOutput {
  /** Waits (bounded) for both pipes to end, then detaches from them and returns the tails. */
  finish(): Promise<{ readonly stdoutTail: string; readonly stderrTail: string }>;
}

export interface CaptureOptions {
  readonly forward?: { readonly stdout: Writable; readonly stderr: Writable };
  readonly onText?: (stream: StreamName, text: string) => void;
}

function waitClosed(stream: NodeJS.ReadableStream | null, ms: number): Promise<void> {
  if (stream === null) return Promise.resolve();
  const readable = stream as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
  if (readable.readableEnded || readable.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once('end', done);
    stream.once('close', done);
  });
}

export function captureOutput(child: ChildProcess, options: CaptureOptions = {}): CapturedOutput {
  const tails: Record<StreamName, OutputTail> = { stdout: createOutputTail(), stderr: createOutputTail() };
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = child[name];
    if (stream === null) continue;
    stream.on('data', (chunk: Buffer) => {
      const text = tails[name].push(chunk);
      if (options.onText !== undefined && text.length > 0) options.onText(name, text);
    });
    // pipe() applies backpressure from our terminal to the worker; the tail sees every chunk too.
    if (options.forward !== undefined) {
      const target = options.forward[name];
      stream.pipe(target, { end: false });
      // A closed terminal or pipe (EPIPE, e.g. `| head`) must not stall the worker: stop
      // forwarding and keep draining into the tail.
      target.once('error', () => {
        stream.unpipe(target);
        stream.resume();
      });
    }
  }

  let finished: Promise<{ readonly stdoutTail: string; readonly stderrTail: string }> | undefined;
  async function drain() {
    await Promise.all([waitClosed(child.stdout, OUTPUT_DRAIN_MS), waitClosed(child.stderr, OUTPUT_DRAIN_MS)]);
    // A kept descendant may still hold the pipes open; stop reading rather than wait forever.
    child.stdout?.destroy();
    child.stderr?.destroy();
    return { stdoutTail: tails.stdout.finish(), stderrTail: tails.stderr.finish() };
  }

  return {
    finish() {
      finished ??= drain();
      return finished;
    },
  };
}
