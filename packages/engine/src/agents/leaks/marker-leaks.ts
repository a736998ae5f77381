/**
 * Trees that leaked before any observer ran, found from markers alone: a process carrying an
 * agent's marker whose marked ancestry ends at pid 1 or a subreaper, outside every live session.
 * Grouped per orphaned top; the top's unmarked descendants leak with it.
 */
import type { ProcessEntry } from '../../table/types.js';
import { describeHit, outerAgents, primaryAgent, sessionKeysOf } from '../rules/match.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';
import {
  type AgentLeak,
  addDescendants,
  isEligible,
  isRootGone,
  type Judge,
  type LeakedProcess,
  leaked,
  roleFromArgv,
} from './leak-judge.js';
import { isAdopter } from './leak-reasons.js';

/** The top of a marked process's marked ancestry, when that top was reparented to an adopter. */
function orphanedTop(judge: Judge, entry: ProcessEntry, agent: string): ProcessEntry | null {
  const { table, markers } = judge.input;
  let top = entry;
  for (let depth = 0; depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    if (isAdopter(table, top.ppid, judge.subreapers)) return top;
    const parent = table.entries.get(top.ppid);
    // A live parent without this agent's markers holds the process (or is a live session): not orphaned.
    if (parent === undefined || !(markers.get(parent.pid) ?? []).some((hit) => hit.agent === agent)) return null;
    if (judge.protectedPids.has(parent.pid)) return null;
    top = parent;
  }
  return null;
}

export function markerOnlyLeaks(judge: Judge): AgentLeak[] {
  const groups = new Map<string, AgentLeak & { processes: LeakedProcess[] }>();
  for (const [pid, hits] of judge.input.markers) {
    const entry = judge.input.table.entries.get(pid);
    const markersOf = (marked: number) => judge.input.markers.get(marked);
    const agent = primaryAgent(hits, { outer: outerAgents(hits, markersOf), ruleOrder: judge.input.ruleOrder });
    if (agent === null || !isEligible(judge, entry)) continue;
    const top = orphanedTop(judge, entry, agent);
    if (top === null || !isEligible(judge, top) || isAmbiguous(judge, top, agent)) continue;
    const sessionId = `${agent}-orphan-${top.pid}-${top.startTime}`;
    // Roles from argv as for observed members (an MCP server is one, even found from markers alone).
    const found: LeakedProcess[] = [leaked(judge, top, roleFromArgv(judge, top), topEvidence(judge, top, agent))];
    addDescendants(judge, found);
    groups.set(sessionId, {
      sessionId,
      agent,
      root: null,
      why: `${agent} markers on a tree reparented to an adopter, outside every live session`,
      processes: found,
    });
  }
  return [...groups.values()];
}

/**
 * A marked orphan that may be a live session's own, with no evidence either way, is not reported
 * (once that session is over, it is). That is an orphan of an agent with a session of that agent
 * live that started before it, when the orphan names no session (the live one's daemon, say), or
 * names one no record knows while the live session has learnt no id of that kind yet: an MCP
 * server whose wrapper died before any observer saw it under its live agent carries that agent's
 * own id. An orphan naming a known session is judged by that record, and one naming an unknown id
 * beside live sessions that each know their own is another session's leak.
 */
function isAmbiguous(judge: Judge, top: ProcessEntry, agent: string): boolean {
  const keys = sessionKeysOf(judge.input.markers.get(top.pid) ?? []);
  const { live, remembered, table } = judge.input;
  if (keys.length > 0 && remembered.some((session) => session.sessionKeys.some((key) => keys.includes(key))))
    return false;
  // A session knowing no key of a kind the orphan carries could be the one it names.
  const kinds = new Set(keys.map(keyKind));
  const couldOwn = (sessionKeys: readonly string[]) =>
    kinds.size === 0 || !sessionKeys.some((key) => kinds.has(keyKind(key)));
  if (live.some((s) => s.agent === agent && s.root.startedAtMs <= top.startedAtMs && couldOwn(s.sessionKeys)))
    return true;
  return remembered.some(
    (session) =>
      session.agent === agent &&
      !isRootGone(table, session) &&
      session.startedAtMs <= top.startedAtMs &&
      couldOwn(session.sessionKeys),
  );
}

/** `claude-code:session:` of `claude-code:session:ID` (match.ts's keys: agent, kind, value). */
function keyKind(key: string): string {
  return key.slice(0, key.indexOf(':', key.indexOf(':') + 1) + 1);
}

function topEvidence(judge: Judge, top: ProcessEntry, agent: string): string[] {
  const hits = judge.input.markers.get(top.pid) ?? [];
  return [`${agent} marker ${hits.map(describeHit).join(', ')}; no live session claims it`];
}
