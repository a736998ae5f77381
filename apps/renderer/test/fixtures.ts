/** Protocol-valid objects for renderer tests; each builder takes overrides. */

import { cleanup } from '@testing-library/react';
import type {
  BridgeApi,
  Command,
  KillReport,
  LeaseView,
  ProcessNode,
  Reply,
  RunView,
  SessionView,
  Snapshot,
} from '@treewarden/protocol';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { ProcessRowProps } from '../src/components/process-row';
import type { TreeRow } from '../src/model/tree';
import { createHistoryState } from '../src/store/history-slice';
import { createSystemTable } from '../src/store/slices';
import { useAppStore } from '../src/store/store';
import { setBridge } from '../src/transport/host';

export const NOW = 1_700_000_000_000;

export function makeProcess(overrides: Partial<ProcessNode> & { pid: number }): ProcessNode {
  return {
    startTime: `${overrides.pid}00`,
    ppid: 1,
    pgid: overrides.pid,
    sid: overrides.pid,
    state: 'S',
    uid: 1000,
    command: 'node',
    commandLine: `node worker-${overrides.pid}.mjs`,
    cwd: '/tmp/run',
    cpuPercent: 1.5,
    rssBytes: 42 * 1024 * 1024,
    startedAtMs: NOW - 65_000,
    escaped: false,
    ...overrides,
  };
}

/** A top-level row of `node` under `key`, for rendering a ProcessRow alone. */
export function rowOf(key: string, node: ProcessNode): TreeRow {
  return { key, node, depth: 0, childCount: 0, parent: null };
}

/** A ProcessRow's props for `row`, inactive and with handlers that do nothing, plus `overrides`. */
export function rowProps(row: TreeRow, overrides: Partial<ProcessRowProps> = {}): ProcessRowProps {
  return {
    id: 'row',
    row,
    active: false,
    collapsed: false,
    anchor: null,
    onActivate: () => {},
    onToggle: () => {},
    onKill: () => {},
    killPending: false,
    ...overrides,
  };
}

export function makeRun(overrides: Partial<RunView> = {}): RunView {
  return {
    id: 'run-1',
    leaseId: 'lease-1',
    command: 'node',
    args: ['worker.mjs'],
    cwd: '/tmp/run-1',
    cookie: 'TREEWARDEN_RUN=run-1',
    timeoutSeconds: 60,
    startedAtMs: NOW - 10_000,
    deadlineAtMs: NOW + 50_000,
    endedAtMs: null,
    phase: 'running',
    root: { pid: 100, startTime: '10000' },
    classification: null,
    exitCode: null,
    signal: null,
    processes: [makeProcess({ pid: 100, ppid: 50 })],
    leakedCount: 0,
    unsupervised: false,
    endReason: null,
    retry: { available: false, reason: 'the run is still going: Retry starts it again once it ended' },
    lastKill: null,
    stdoutTail: '',
    stderrTail: '',
    ...overrides,
  };
}

export function makeLease(overrides: Partial<LeaseView> = {}): LeaseView {
  return {
    id: 'lease-1',
    name: 'ui',
    holder: { pid: 50, startTime: '5000' },
    holderCommand: 'treewarden serve',
    holderState: 'alive',
    heldByThisApp: true,
    createdAtMs: NOW - 60_000,
    runs: [makeRun()],
    liveCount: 1,
    leakedCount: 0,
    ...overrides,
  };
}

/** A live Claude session: root 500, an MCP server 501 and a dev server 502 (5 MiB in all). */
export function makeSession(overrides: Partial<SessionView> = {}): SessionView {
  return {
    id: 'claude-code-500-77',
    agent: 'claude-code',
    state: 'live',
    root: { pid: 500, startTime: '77' },
    cwd: '/home/ana/proj',
    startedAt: new Date(NOW - 60_000).toISOString(),
    endedAt: null,
    members: [
      { pid: 501, startTime: '78', role: 'mcp-server', args: ['node', 'mcp.js'] },
      { pid: 502, startTime: '79', role: 'dev-server', args: ['node', 'dev.js'] },
    ],
    leaked: [],
    processes: [
      { ...makeProcess({ pid: 500, startTime: '77', ppid: 1, rssBytes: 3 * 1024 * 1024 }), role: 'root' },
      {
        ...makeProcess({ pid: 501, startTime: '78', ppid: 500, rssBytes: 1024 * 1024, commandLine: 'node mcp.js' }),
        role: 'mcp-server',
      },
      {
        ...makeProcess({ pid: 502, startTime: '79', ppid: 501, rssBytes: 1024 * 1024, commandLine: 'node dev.js' }),
        role: 'dev-server',
      },
    ],
    cpuPercent: 2.5,
    rssBytes: 5 * 1024 * 1024,
    ...overrides,
  };
}

export function makeSnapshot(overrides: Partial<Snapshot> = {}): Snapshot {
  return {
    takenAtMs: NOW,
    pollIntervalMs: 1000,
    leases: [makeLease()],
    orphans: [],
    counts: { live: 1, leaked: 0 },
    ...overrides,
  };
}

export function makeKillReport(overrides: Partial<KillReport> = {}): KillReport {
  return {
    result: 'killed',
    target: { pid: 100, startTime: '10000' },
    attempts: 1,
    killed: [{ pid: 100, startTime: '10000' }],
    survivors: [],
    timeline: [
      { atMs: NOW, action: 'observe', pids: [100] },
      { atMs: NOW + 2, action: 'SIGTERM', groups: [100] },
      { atMs: NOW + 2010, action: 'SIGKILL', groups: [100] },
      { atMs: NOW + 2030, action: 'verify', detail: 'nothing left' },
    ],
    startedAtMs: NOW,
    durationMs: 2030,
    ...overrides,
  };
}

/** A bridge whose answers the test scripts; it records every command sent. */
export function installFakeBridge(answer: (command: Command) => Reply | Promise<Reply>) {
  const sent: Command[] = [];
  const listeners = new Set<Parameters<BridgeApi['onEvent']>[0]>();
  const bridge: BridgeApi = {
    request: async (command) => {
      sent.push(command);
      return answer(command);
    },
    onEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  setBridge(bridge);
  return { sent, bridge };
}

export function okReply(result: unknown): Reply {
  return { kind: 'reply', id: 1, ok: true, result };
}

/** Resets the singleton store and the bridge around every test of the file that calls it. */
export function resetStoreEachTest(): void {
  const initial = useAppStore.getState();
  // The history rings are mutated in place: every test starts with empty ones. So are the system table and its tree.
  beforeEach(() => useAppStore.setState({ ...initial, ...createHistoryState(), ...createSystemTable() }, true));
  afterEach(() => {
    cleanup(); // vitest runs without globals, so testing-library cannot register this itself
    setBridge(null);
  });
}

/**
 * jsdom lays nothing out: gives every element a `clientHeight` of `px` for this file's tests, so
 * the System view's virtualizer has a viewport and renders rows; restored after the file.
 */
export function withViewportHeight(px: number): void {
  let saved: PropertyDescriptor | undefined;
  beforeAll(() => {
    saved = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => px });
  });
  afterAll(() => {
    if (saved) Object.defineProperty(HTMLElement.prototype, 'clientHeight', saved);
  });
}
