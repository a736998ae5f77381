/**
 * The system history pass spread over polls: each poll samples about a fifth of the processes,
 * every process still gets a sample within its pass, and the flags always equal a full
 * computation over every process's ring (exits, births, zombies, full tables and new thresholds included).
 */
import type { ProcessNode } from '@treewarden/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SYSTEM_SAMPLE_MIN_MS } from '../src/model/history';
import { identityKey, isZombie } from '../src/model/identity';
import { computeFlags } from '../src/store/history-slice';
import { createAppStore } from '../src/store/store';
import { SYSTEM_SAMPLE_GROUPS } from '../src/store/system-sampling';
import { makeProcess } from './fixtures';

const START_MS = 1_700_000_000_000;
const MIB = 1024 * 1024;

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('system history spread over polls', () => {
  let nowMs = START_MS;
  beforeEach(() => {
    nowMs = START_MS;
    vi.spyOn(Date, 'now').mockImplementation(() => nowMs);
  });
  afterEach(() => vi.restoreAllMocks());

  for (const pollMs of [1000, 2000, 3000]) {
    it(`samples each process once per pass and keeps the flags exact (poll ${pollMs} ms)`, { timeout: 60_000 }, () => {
      const random = seeded(pollMs);
      const store = createAppStore();
      const nodes = new Map<string, ProcessNode>();
      let nextPid = 2;
      const birth = () => {
        const pid = nextPid++;
        // A quarter spin above the 90 % threshold, some grow fast, the rest idle.
        const node = makeProcess({ pid, ppid: 1, startTime: String(pid), cpuPercent: pid % 4 === 0 ? 99 : 2 });
        nodes.set(identityKey(node), node);
        return node;
      };
      for (let i = 0; i < 200; i += 1) birth();
      store.getState().applySystemDiff({ type: 'systemDiff', full: true, upserts: [...nodes.values()], removed: [] });
      const seenAt = new Map<string, number>([...nodes.keys()].map((key) => [key, nowMs]));
      let flaggedAtSomePoint = 0;
      const polls = Math.ceil((5 * 60_000) / pollMs);
      for (let poll = 0; poll < polls; poll += 1) {
        nowMs += pollMs;
        const upserts: ProcessNode[] = [];
        const removed: string[] = [];
        for (const node of [...nodes.values()]) {
          const roll = random();
          const key = identityKey(node);
          if (roll < 0.005) {
            nodes.delete(key);
            removed.push(key);
          } else if (roll < 0.01) {
            const next = { ...node, state: isZombie(node) ? 'S' : 'Z' };
            nodes.set(key, next);
            upserts.push(next);
          } else if (roll < 0.3) {
            const grow = node.pid % 5 === 0 ? 40 * MIB * (pollMs / 60_000) : 0;
            // pid % 7 sits between the thresholds the series switches between, then calms down.
            const middling = poll < (polls * 3) / 4 ? 70 : 10;
            const cpuPercent = node.pid % 4 === 0 ? 95 : node.pid % 7 === 0 ? middling : random() * 50;
            const next = { ...node, rssBytes: node.rssBytes + grow, cpuPercent };
            nodes.set(key, next);
            upserts.push(next);
          }
        }
        if (random() < 0.1) {
          const node = birth();
          upserts.push(node);
          seenAt.set(identityKey(node), nowMs);
        }
        const book = store.getState().systemHistory;
        const sizesBefore = new Map([...nodes.keys()].map((key) => [key, book.ring(key)?.size ?? 0]));
        const full = poll === Math.floor(polls / 2);
        // New thresholds part-way: flags recomputed over everything, then kept up by the groups again.
        if (poll === Math.floor((polls * 3) / 4))
          store.getState().setFlagSettings({ ...store.getState().flagSettings, cpuPercent: 60, cpuMinutes: 1 });
        if (poll === Math.floor((polls * 7) / 8))
          store.getState().setFlagSettings({ ...store.getState().flagSettings, cpuPercent: 99, cpuMinutes: 3 });
        store
          .getState()
          .applySystemDiff(
            full
              ? { type: 'systemDiff', full: true, upserts: [...nodes.values()], removed: [] }
              : { type: 'systemDiff', full: false, upserts, removed },
          );
        const state = store.getState();
        // Spread: at a 1 s poll one group per poll, never the whole table at once after the first pass.
        const sampled = [...nodes.keys()].filter((key) => (book.ring(key)?.size ?? 0) > (sizesBefore.get(key) ?? 0));
        if (poll > SYSTEM_SAMPLE_GROUPS)
          expect(sampled.length).toBeLessThanOrEqual(
            Math.ceil((nodes.size * Math.ceil(pollMs / 1000)) / SYSTEM_SAMPLE_GROUPS) + 5,
          );
        // Exact: the kept flags equal a full computation over every ring.
        const full_ = computeFlags(state.systemHistory, state.system.keys(), state.flagSettings);
        expect([...state.systemFlags.keys()].sort()).toEqual([...full_.keys()].sort());
        flaggedAtSomePoint = Math.max(flaggedAtSomePoint, state.systemFlags.size);
        // Timely: a live process seen for a whole pass has a sample no older than a pass and a poll.
        for (const [key, node] of nodes) {
          if (isZombie(node) || nowMs - (seenAt.get(key) ?? nowMs) < SYSTEM_SAMPLE_MIN_MS + pollMs) continue;
          const last = book.ring(key)?.lastAtMs();
          if (last === undefined || last === null) continue; // turned back from zombie: its curve starts again
          expect(nowMs - last, `poll ${poll}, ${key}`).toBeLessThanOrEqual(SYSTEM_SAMPLE_MIN_MS + pollMs);
        }
        // Rings of processes that left are dropped.
        for (const key of removed) expect(book.ring(key)).toBeUndefined();
      }
      // The series must raise flags, or the comparison proved nothing.
      expect(flaggedAtSomePoint).toBeGreaterThan(3);
    });
  }
});
