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
 * Applies events that arrive together in one task: a poll sends its snapshot and its system diff
 * as two messages (two tasks), and each would be its own React render, layout and paint of the
 * same rows; the shared clock's tick joins them (store/clock). A batch waits for no more than the
 * next turn of the event loop (`schedule`), so nothing is held back longer than that.
 */
export function createEventBatcher(
  apply: (events: readonly HostEvent[]) => void,
  schedule: (flush: () => void) => void = (flush) => setTimeout(flush, 0),
): { push(event: HostEvent): void; cancel(): void } {
  let queued: HostEvent[] = [];
  let cancelled = false;
  const flush = () => {
    const events = queued;
    queued = [];
    if (!cancelled) apply(events);
  };
  return {
    push(event) {
      queued.push(event);
      if (queued.length === 1) schedule(flush);
    },
    cancel() {
      cancelled = true;
      queued = [];
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
  const batch = createEventBatcher((events) => {
    if (events.some((event) => event.type === 'snapshot' || event.type === 'systemDiff')) tickWithData();
    for (const event of events) routeEvent(store, event);
  });
  const unsubscribe = bridge.onEvent((event) => batch.push(event));
  return () => {
    batch.cancel();
    unsubscribe();
    close();
    setBridge(null);
  };
}
