/**
 * Messages between holder and guardian, and the guardian's start-up config, are validated before
 * anything acts on them: a bad one is dropped (messages) or refused with what is wrong (config).
 */
import { describe, expect, it } from 'vitest';
import { parseGuardianConfig, parseGuardianMessage, parseHolderMessage } from '../../src/lease/protocol.js';

const CONFIG = { leaseId: 'lease-a', name: 'n', stateDir: '/s', holder: { pid: 5, startTime: '9' } };

describe('lease protocol', () => {
  it('accepts the messages the holder and the guardian really send', () => {
    const start = { t: 'start', runId: 'run-a', spec: { command: 'node', args: ['x'], env: { A: '1' } } };
    expect(parseHolderMessage(start)).toEqual(start);
    expect(parseHolderMessage({ t: 'cancel', runId: 'run-a' })).toEqual({ t: 'cancel', runId: 'run-a' });
    const ready = { t: 'ready', guardian: { pid: 7, startTime: '3' }, subreaper: true };
    expect(parseGuardianMessage(ready)).toEqual(ready);
    const event = { t: 'event', runId: 'run-a', event: { type: 'output', stream: 'stdout', text: 'hi' } };
    expect(parseGuardianMessage(event)).toEqual(event);
    expect(parseGuardianConfig(JSON.stringify(CONFIG))).toEqual(CONFIG);
  });

  it.each([
    ['a run id that names a path', { t: 'start', runId: '../../etc', spec: { command: 'x' } }],
    ['an empty command', { t: 'start', runId: 'run-a', spec: { command: '' } }],
    ['env values that are not strings', { t: 'start', runId: 'run-a', spec: { command: 'x', env: { A: 1 } } }],
    ['an unknown type', { t: 'shutdown' }],
    ['not an object', 'start'],
  ])('drops a holder message with %s', (_name, message) => {
    expect(parseHolderMessage(message)).toBeNull();
  });

  it.each([
    ['an outcome without a classification', { t: 'ended', runId: 'r', outcome: { runId: 'r' } }],
    [
      'a started message with a pid of 0',
      { t: 'started', runId: 'r', runDir: '/d', phase: 'running', pid: 0, startTime: '1' },
    ],
    ['a ready without the guardian identity', { t: 'ready', subreaper: true }],
    ['an event of an unknown type', { t: 'event', runId: 'r', event: { type: 'explode' } }],
  ])('drops a guardian message with %s', (_name, message) => {
    expect(parseGuardianMessage(message)).toBeNull();
  });

  it('refuses a guardian config with a relative state dir or a path-like lease id, saying what is wrong', () => {
    expect(() => parseGuardianConfig(JSON.stringify({ ...CONFIG, stateDir: 'rel' }))).toThrow(
      /stateDir: must be an absolute path/,
    );
    expect(() => parseGuardianConfig(JSON.stringify({ ...CONFIG, leaseId: '../x' }))).toThrow(/leaseId/);
  });
});
