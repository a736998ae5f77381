/**
 * A stand-in for the Electron binary, for tests of everything that spawns JavaScript. Like the
 * real one it runs a script as Node only when ELECTRON_RUN_AS_NODE=1 is set; started without it,
 * it would start a second app, which the single-instance lock quits at once with status 0: the
 * stand-in does the same, after writing its arguments to a refusal log, so a test sees every spawn
 * that forgot the variable, however deep in a tree. Processes it runs look like Electron running
 * as Node: `process.execPath` is the stand-in and `process.versions.electron` is set.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FAKE_ELECTRON_VERSION = '45.5.0';

export interface FakeElectron {
  /** The executable to spawn in place of Electron. */
  readonly binary: string;
  /** One line per start without ELECTRON_RUN_AS_NODE=1 (its arguments). */
  refusals(): string[];
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function createFakeElectron(dir: string): FakeElectron {
  const binary = join(dir, 'electron');
  const refusalLog = join(dir, 'refusals.log');
  const preload = join(dir, 'as-electron.mjs');
  writeFileSync(refusalLog, '');
  writeFileSync(
    preload,
    [
      `process.execPath = ${JSON.stringify(binary)};`,
      `Object.defineProperty(process.versions, 'electron', { value: ${JSON.stringify(FAKE_ELECTRON_VERSION)}, enumerable: true });`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    binary,
    [
      '#!/bin/sh',
      'if [ "$ELECTRON_RUN_AS_NODE" != 1 ]; then',
      `  printf '%s\\n' "$*" >> ${quote(refusalLog)}`,
      '  exit 0',
      'fi',
      `exec ${quote(process.execPath)} --import ${quote(preload)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(binary, 0o755);
  return {
    binary,
    refusals: () =>
      readFileSync(refusalLog, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0),
  };
}
