/**
 * Picks the transport (Electron preload, else the loopback WebSocket from location) and wires its
 * events into the store. Lives outside React: components only read the store.
 */
import { type BridgeApi, type HostEvent, TOKEN_QUERY_PARAM, WS_PATH } from '@treewarden/protocol';
import { tickWithData } from '../store/clock';
import type { AppStore } from '../store/store';
import { findPreloadBridge, wrapPreloadBridge } from './electron-bridge';
import { setBridge } from './host';
import { pageTokenSources, takeToken } from './token';
import { createWsBridge } from './ws-bridge';

export function routeEvent(store: AppStore, event: HostEvent): void {
  const state = store.getState();
  switch (event.type) {
    case 'snapshot':
      state.applySnapshot(event.snapshot);
      return;
    case 'systemDiff':
      // Late diffs after the view closed would refill a table nobody shows.
      if (state.systemWatched) state.applySystemDiff(event);
      return;
    case 'runEnded':
      state.pushOutcome({
        kind: 'runEnded',
        ok: event.classification === 'ok',
        title: `Run ${event.runId} ended`,
        // The engine's own words when it failed (e.g. "missing binary: … not found"), else the exit code.
        message: event.error ?? (event.exitCode === null ? null : `exit code ${event.exitCode}`),
        classification: event.classification,
        reports: [],
        runId: event.runId,
      });
      return;
    case 'killOutcome': {
      // Kills this UI asked for are reported by their action, whose title says more; this covers
      // timeouts, lease releases and other clients (pushOutcome drops the event's copy if the reply comes later).
      const { pid, startTime } = event.report.target;
      const known = state.outcomes.some((outcome) =>
        outcome.reports.some(
          (report) =>
            report.target.pid === pid &&
            report.target.startTime === startTime &&
            report.startedAtMs === event.report.startedAtMs,
        ),
      );
      if (known) return;
      state.pushOutcome({
        kind: 'kill',
        ok: event.report.result === 'killed' || event.report.result === 'already_gone',
        title: `Tree of pid ${event.report.target.pid}: ${event.report.result.replace('_', ' ')}`,
        message: event.report.error ?? null,
        classification: null,
        reports: [event.report],
        runId: event.runId,
      });
      return;
    }
  }
}

/** The loopback WebSocket's URL on the page's own host, or null without a token or over file://. */
export function buildWebSocketUrl(location: Pick<Location, 'protocol' | 'host'>, token: string | null): string | null {
  if (!token || (location.protocol !== 'http:' && location.protocol !== 'https:')) return null;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${WS_PATH}?${TOKEN_QUERY_PARAM}=${encodeURIComponent(token)}`;
}

/**
 * How long a snapshot waits for its poll's system diff while the system view is watched. The host
 * sends the two back to back, but they reach the page as two messages some 5 to 30 ms apart: each
 * applied on its own was a React render, layout and paint of the same rows, two frames a second
 * where one does. The diff comes with every poll while watched, so the wait normally ends when it
 * arrives; this only bounds it (a snapshot before the host began watching has no diff to wait for).
 */
export const SNAPSHOT_DIFF_WAIT_MS = 100;

/** Runs `flush` after `delayMs` (0: the next turn of the event loop); returns a cancel. */
export type BatchSchedule = (flush: () => void, delayMs: number) => () => void;

const scheduleTimeout: BatchSchedule = (flush, delayMs) => {
  const timer = setTimeout(flush, delayMs);
  return () => clearTimeout(timer);
};

/**
 * Applies events that arrive together in one task: a poll sends its snapshot and its system diff
 * as two messages (two tasks), and each would be its own React render, layout and paint of the
 * same rows; the shared clock's tick joins them (store/clock). A batch waits for no more than the
 * next turn of the event loop (`schedule`), so nothing is held back longer than that — except a
 * snapshot while `awaitsDiff()` (the system view is watched), which waits for the diff that follows
 * it, at most SNAPSHOT_DIFF_WAIT_MS.
 */
export function createEventBatcher(
  apply: (events: readonly HostEvent[]) => void,
  schedule: BatchSchedule = scheduleTimeout,
  awaitsDiff: () => boolean = () => false,
): { push(event: HostEvent): void; cancel(): void } {
  let queued: HostEvent[] = [];
  let cancelled = false;
  // The pending flush: its cancel and whether it is the bounded wait for a diff.
  let pending: { cancel: () => void; waiting: boolean } | null = null;
  const flush = () => {
    pending = null;
    const events = queued;
    queued = [];
    if (!cancelled) apply(events);
  };
  return {
    push(event) {
      queued.push(event);
      // Held while the newest event is a snapshot whose diff is still to come.
      const waiting = event.type === 'snapshot' && awaitsDiff();
      if (pending !== null && pending.waiting === waiting) return;
      pending?.cancel();
      pending = { cancel: schedule(flush, waiting ? SNAPSHOT_DIFF_WAIT_MS : 0), waiting };
    },
    cancel() {
      cancelled = true;
      queued = [];
      pending?.cancel();
      pending = null;
    },
  };
}

/** Connects the store to its host; returns a function that disconnects. */
export function connectStore(store: AppStore, onOpen: () => void): () => void {
  const preload = findPreloadBridge();
  let bridge: BridgeApi;
  let close = () => {};
  if (preload) {
    bridge = wrapPreloadBridge(preload);
    store.getState().setConnection({ status: 'open', message: null, transport: 'electron' });
    queueMicrotask(onOpen);
  } else {
    const url = buildWebSocketUrl(window.location, takeToken(pageTokenSources()));
    if (!url) {
      store.getState().setConnection({
        status: 'closed',
        transport: 'none',
        message:
          'No host token for this tab. Start the UI with `treewarden serve` and open the URL it prints (it ends in ?token=…).',
      });
      return () => {};
    }
    const ws = createWsBridge({
      url,
      onStatus: (status, message) => {
        store.getState().setConnection({ status, message, transport: 'websocket' });
        if (status === 'open') onOpen();
      },
    });
    bridge = ws;
    close = () => ws.close();
  }
  setBridge(bridge);
  const batch = createEventBatcher(
    (events) => {
      if (events.some((event) => event.type === 'snapshot' || event.type === 'systemDiff')) tickWithData();
      for (const event of events) routeEvent(store, event);
    },
    scheduleTimeout,
    () => store.getState().systemWatched,
  );
  const unsubscribe = bridge.onEvent((event) => batch.push(event));
  return () => {
    batch.cancel();
    unsubscribe();
    close();
    setBridge(null);
  };
}
