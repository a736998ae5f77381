/**
 * The whole-system table the system view is sent, kept between polls and updated in place, its
 * diff gathered while updating. Rebuilt each poll (a Map of rows, a Map of CPU percents and two
 * identity-key strings per process, then a diff of two Maps), it was the serve main thread's
 * largest idle cost at ~1,000 processes, most of it young garbage. Here a row lives as long as its
 * process: its key is made once, its CPU sample sits on it, and a process whose entry object the
 * poll worker kept (it did not run, see the reader's keepIdle) costs a lookup and four comparisons.
 */
import { identityKey, type ProcessEntry, type TableChanges } from '@treewarden/engine';
import type { ListeningSocket, ProcessNode } from '@treewarden/protocol';
import type { RunRecord } from '../run-record.js';
import { cpuPercentBetween, type ListeningLookup, toProcessNode } from './process-node.js';
import { type SystemDiff, sameNode } from './system-diff.js';

interface Row {
  readonly key: string;
  readonly startTime: string;
  entry: ProcessEntry;
  /** What watchers were sent for this process (or would be, on a full diff). */
  node: ProcessNode;
  /** CPU time at the last update: the next percent's base (with that update's read time). */
  cpuTimeMs: number;
  listening: readonly ListeningSocket[] | undefined;
  /** The update that last saw this process: rows older than the current one are gone. */
  seenIn: number;
}

export interface SystemRows {
  /**
   * Brings every row up to this table and returns what changed since the last update: processes
   * that appeared or changed, and the keys of those gone (full, with every row, after `resync`).
   * A process seen for the first time has no CPU % yet (unknown, never a made-up 0).
   * With `changes` that start from the table of the last update (and the same `listeningOf`),
   * only the changed, the removed and the unsettled rows are looked at (see `update` below).
   */
  update(
    entries: ReadonlyMap<number, ProcessEntry>,
    readAtMs: number,
    runs: Iterable<RunRecord>,
    listeningOf?: ListeningLookup,
    changes?: TableChanges,
  ): SystemDiff;
  /** Every row as last updated (a view that starts watching is answered with them). */
  nodes(): ProcessNode[];
  /** The next update's diff is full, so every watcher starts again from the same base. */
  resync(): void;
}

/** Members of runs that left their group or session, pid → start time (a recycled pid is not one). */
function escapedMembers(runs: Iterable<RunRecord>): Map<number, string> {
  const escaped = new Map<number, string>();
  for (const record of runs) {
    for (const member of record.membership.entries()) {
      if (record.membership.isEscaped(member)) escaped.set(member.pid, member.startTime);
    }
  }
  return escaped;
}

export function createSystemRows(): SystemRows {
  const rows = new Map<number, Row>();
  let update = 0;
  let fullNext = true;
  // What the last update went through: its table, read time and port lookup.
  let lastEntries: ReadonlyMap<number, ProcessEntry> | null = null;
  let lastReadAtMs = 0;
  let lastListeningOf: ListeningLookup | undefined;
  /**
   * Pids whose row can change though their entry object stays: a CPU % not 0 (or not known yet)
   * falls to 0 once the process stops running, and an escaped mark goes when its run does. Few
   * at any time (what ran in the last second), so an update from `changes` visits these too.
   */
  const unsettled = new Set<number>();

  function nodes(): ProcessNode[] {
    const all: ProcessNode[] = [];
    rows.forEach((row) => {
      all.push(row.node);
    });
    return all;
  }

  return {
    update(entries, readAtMs, runs, listeningOf, changes) {
      update += 1;
      const escaped = escapedMembers(runs);
      const upserts: ProcessNode[] = [];
      const removed: string[] = [];
      // Every row's CPU time is as of the last update's read (a row not looked at then had the
      // same entry, so the same CPU time), so that read is every percent's base.
      const baseAtMs = lastReadAtMs;

      function drop(pid: number, row: Row): void {
        removed.push(row.key);
        rows.delete(pid);
        unsettled.delete(pid);
      }

      function visit(entry: ProcessEntry, pid: number): void {
        let row = rows.get(pid);
        if (row !== undefined && row.seenIn === update) return;
        if (row !== undefined && row.startTime !== entry.startTime) {
          // The pid was handed to another process: the old identity is gone, this one is new.
          drop(pid, row);
          row = undefined;
        }
        const isEscaped = escaped.get(pid) === entry.startTime;
        if (row === undefined) {
          const key = identityKey(entry);
          const listening = listeningOf?.(key);
          const node = toProcessNode(
            entry,
            undefined,
            isEscaped,
            listening === undefined ? undefined : () => listening,
          );
          rows.set(pid, {
            key,
            startTime: entry.startTime,
            entry,
            node,
            cpuTimeMs: entry.cpuTimeMs,
            listening,
            seenIn: update,
          });
          unsettled.add(pid);
          upserts.push(node);
          return;
        }
        row.seenIn = update;
        const percent = cpuPercentBetween(row.cpuTimeMs, baseAtMs, entry.cpuTimeMs, readAtMs);
        row.cpuTimeMs = entry.cpuTimeMs;
        const listening = listeningOf?.(row.key);
        // The poll worker keeps the entry object of a process that did not run: same entry, same
        // percent, escape and sockets is the same row, and nothing to send.
        if (
          row.entry === entry &&
          row.node.cpuPercent === percent &&
          row.node.escaped === isEscaped &&
          row.listening === listening
        ) {
          return;
        }
        const node = toProcessNode(entry, percent, isEscaped, listening === undefined ? undefined : () => listening);
        const changed = !sameNode(row.node, node);
        row.entry = entry;
        row.listening = listening;
        row.node = node;
        if (node.cpuPercent !== 0 || node.escaped) unsettled.add(pid);
        else unsettled.delete(pid);
        if (changed) upserts.push(node);
      }

      const fromLast =
        changes !== undefined && !fullNext && changes.since === lastEntries && listeningOf === lastListeningOf;
      if (fromLast) {
        // Only what can have changed: every other pid has the entry, sockets and escape mark of
        // the last update and a percent of 0 then and now (at ~1,000 mostly sleeping processes,
        // a few dozen rows a poll instead of all of them).
        for (const pid of changes.removed) {
          const row = rows.get(pid);
          if (row !== undefined) drop(pid, row);
        }
        changes.changed.forEach(visit);
        const visitPid = (pid: number) => {
          const entry = entries.get(pid);
          if (entry !== undefined) visit(entry, pid);
        };
        for (const pid of escaped.keys()) visitPid(pid);
        // Deleting during forEach is defined; a pid added now was visited in this update already.
        unsettled.forEach(visitPid);
      } else {
        // forEach, not for-of over entries: no [pid, entry] pair per process every poll.
        entries.forEach(visit);
        rows.forEach((row, pid) => {
          // Deleting during forEach is defined: a deleted key is not visited again.
          if (row.seenIn !== update) drop(pid, row);
        });
      }
      lastEntries = entries;
      lastReadAtMs = readAtMs;
      lastListeningOf = listeningOf;
      if (!fullNext) return { full: false, upserts, removed };
      fullNext = false;
      return { full: true, upserts: nodes(), removed: [] };
    },
    nodes,
    resync() {
      fullNext = true;
    },
  };
}
