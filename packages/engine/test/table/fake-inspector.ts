/**
 * A scripted stand-in for an inspector child (`ps`, PowerShell): the test decides what it prints,
 * whether and how it exits, and sees every signal it was sent.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { InspectorProcess, SpawnInspector } from '../../src/table/inspector.js';

export class FakeInspector extends EventEmitter implements InspectorProcess {
  readonly stdout = new PassThrough();
  readonly signals: NodeJS.Signals[] = [];
  private exited = false;

  kill(signal: NodeJS.Signals): boolean {
    this.signals.push(signal);
    if (signal === 'SIGKILL') this.exit(null, signal);
    return true;
  }

  /** Prints `text` and exits with `code`, as a real child would: data first, then close. */
  finish(text: string | Buffer, code = 0): void {
    this.stdout.end(text, () => setImmediate(() => this.exit(code, null)));
  }

  private exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.stdout.end();
    setImmediate(() => this.emit('close', code, signal));
  }
}

/** A SpawnInspector handing out one fake per call; `behave` scripts each one as it is spawned. */
export function fakeSpawner(behave: (fake: FakeInspector) => void): SpawnInspector & { spawned: FakeInspector[] } {
  const spawned: FakeInspector[] = [];
  const spawnInspector = () => {
    const fake = new FakeInspector();
    spawned.push(fake);
    setImmediate(() => behave(fake));
    return fake;
  };
  return Object.assign(spawnInspector, { spawned });
}

/** Like `fakeSpawner`, for a runner that cannot even start (ENOENT). */
export function missingBinarySpawner(): SpawnInspector {
  return () => {
    const fake = new FakeInspector();
    setImmediate(() => {
      fake.emit('error', Object.assign(new Error('spawn ps ENOENT'), { code: 'ENOENT' }));
      fake.emit('close', -2, null);
    });
    return fake;
  };
}
