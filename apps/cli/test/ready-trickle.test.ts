/**
 * readyPattern on output that trickles in tiny chunks: a ready line split across chunks still
 * matches, and each chunk is tried with a bounded carry, not the whole 64 KiB window again (the
 * old way cost ~18× the CPU on this trickle: 537 ms against 29 ms here).
 */
import { describe, expect, it } from 'vitest';
import { waitUntilReady } from '../src/mcp/readiness.js';
import type { SessionRun } from '../src/mcp/session-runs.js';

function trickleTarget() {
  const subscribers: ((text: string) => void)[] = [];
  const target = {
    output: {
      read: () => ({ text: 'earlier output\n' }),
      subscribe: (listener: (text: string) => void) => {
        subscribers.push(listener);
        return () => undefined;
      },
    },
    run: { outcome: new Promise(() => undefined), identity: null, subscribe: () => () => undefined },
    members: () => [],
  } as unknown as SessionRun;
  return {
    target,
    send: (text: string) => {
      for (const listener of subscribers) listener(text);
    },
  };
}

describe('readyPattern over a trickle', () => {
  it('matches a ready line split across chunks, and tries each chunk with a bounded carry', async () => {
    const { target, send } = trickleTarget();
    let tested = 0;
    const pattern = /listening on port \d+ ready/;
    const counting = new Proxy(pattern, {
      get(regex, key) {
        if (key === 'test')
          return (text: string) => {
            tested += text.length;
            return regex.test(text);
          };
        return Reflect.get(regex, key);
      },
    });
    const ready = waitUntilReady(target, { readyPattern: counting, deadlineMs: 60_000 });
    const line = 'compiling module some/path/file.ts ... ok\n';
    for (let index = 0; index < 20_000; index += 1) send(index % 2 === 0 ? line : line.slice(0, 10));
    for (const piece of ['listen', 'ing on po', 'rt 3000 re', 'ady\n']) send(piece);
    expect(await ready).toMatchObject({ state: 'ready', by: 'pattern' });
    // Whole-window matching tried ~64 KiB per chunk (over a GiB here); the carry keeps it to a few MB.
    expect(tested).toBeLessThan(20_000 * 2 * line.length);
  });
});
