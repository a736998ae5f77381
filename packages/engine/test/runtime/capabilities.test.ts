/**
 * The native capabilities are probed for real here (this machine has koffi, pidfd and the
 * subreaper), and every missing one turns into a sentence, on Linux only.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { capabilityWarnings, type NativeCapabilities, readNativeCapabilities } from '../../src/runtime/capabilities.js';

const PR_GET_CHILD_SUBREAPER = 37;

interface KoffiModule {
  load(path: string): { func(definition: string): (...args: unknown[]) => number };
}

const ALL: NativeCapabilities = { platform: 'linux', koffiError: null, pidfd: true, subreaper: true };

describe('native capabilities', () => {
  it('finds koffi, pidfd and the subreaper on this Linux machine, without becoming a subreaper', () => {
    expect(readNativeCapabilities()).toEqual(ALL);
    // The probe only reads: this process must not have turned into a subreaper.
    const koffi = createRequire(import.meta.url)('koffi') as KoffiModule;
    const prctl = koffi
      .load('libc.so.6')
      .func('int prctl(int, _Out_ int *, unsigned long, unsigned long, unsigned long)');
    const isSubreaper = [-1];
    expect(prctl(PR_GET_CHILD_SUBREAPER, isSubreaper, 0, 0, 0)).toBe(0);
    expect(isSubreaper[0]).toBe(0);
  });

  it('says nothing when all are there, or off Linux where none exists', () => {
    expect(capabilityWarnings(ALL)).toEqual([]);
    expect(capabilityWarnings({ platform: 'darwin', koffiError: null, pidfd: false, subreaper: false })).toEqual([]);
  });

  it('names each missing capability, and what a missing koffi takes with it', () => {
    expect(capabilityWarnings({ ...ALL, pidfd: false })).toEqual([
      expect.stringMatching(/pidfd signalling is unavailable/),
    ]);
    expect(capabilityWarnings({ ...ALL, subreaper: false })).toEqual([
      expect.stringMatching(/subreaper is unavailable/),
    ]);
    const noKoffi = capabilityWarnings({
      ...ALL,
      koffiError: "Cannot find module './src/koffi/index.cjs'",
      pidfd: false,
    });
    expect(noKoffi).toHaveLength(1);
    expect(noKoffi[0]).toMatch(
      /koffi did not load: Cannot find module '\.\/src\/koffi\/index\.cjs'.*no pidfd.*no subreaper/,
    );
  });
});
