/**
 * What the SessionEnd reaper may end, over an injected table: carriers of exactly the session's
 * id and their descendants; never the agent, another session's carrier (nor what is under it),
 * another agent's root, a marker-less stranger, or a carrier that started before the session.
 */
import { describe, expect, it } from 'vitest';
import { findSessionLeftovers } from '../../src/agents/hooks/leftovers.js';
import type { MarkerReader } from '../../src/agents/read/environ.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { type FakeProcess, fakeTable, makeTempDir } from '../helpers/index.js';

const { rules } = loadAgentRules(makeTempDir());
const OURS = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'ours' };
const THEIRS = { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'theirs' };
const AT = { startedAtMs: 2000 };

const SESSION: StoredSession = {
  version: 1,
  id: 'claude-code-ours',
  agent: 'claude-code',
  root: { pid: 100, startTime: 'st-100', args: ['claude'] },
  cwd: null,
  startedAtMs: 1000,
  lastSeenAtMs: 5000,
  endedAtMs: 5000,
  members: [],
  sessionKeys: ['claude-code:session:ours'],
  hook: { sessionId: 'ours', envKey: 'CLAUDE_CODE_SESSION_ID', openedAtMs: 1000 },
};

const WORLD: FakeProcess[] = [
  { pid: 100, ppid: 1, pgid: 100, args: ['claude'], startedAtMs: 1000 }, // the agent (still listed: a zombie-free race)
  { pid: 101, ppid: 1, pgid: 101, ...AT }, // carrier
  { pid: 102, ppid: 101, pgid: 101, ...AT }, // its child, id removed
  { pid: 103, ppid: 101, pgid: 101, ...AT }, // its child, another session's id
  { pid: 104, ppid: 103, pgid: 101, ...AT }, // under the other session's process
  { pid: 105, ppid: 1, pgid: 105, args: ['codex'], ...AT }, // another agent, started from our shell
  { pid: 106, ppid: 1, pgid: 106, startedAtMs: 500 }, // carrier that started before the session
  { pid: 107, ppid: 1, pgid: 107, ...AT }, // stranger, no markers
  { pid: 108, ppid: 1, pgid: 108, args: ['claude', '--output-format', 'stream-json'], ...AT }, // our subagent
];
const ENV: Record<number, Record<string, string>> = {
  100: OURS,
  101: OURS,
  103: THEIRS,
  104: THEIRS,
  105: OURS,
  106: OURS,
  108: OURS,
};

const reader: MarkerReader = (identity) => new Map(Object.entries(ENV[identity.pid] ?? {}));

describe('findSessionLeftovers', () => {
  it('leaves a tmux server someone is attached to, and its panes; takes it once nobody is', () => {
    const world: FakeProcess[] = [
      { pid: 120, ppid: 1, pgid: 120, command: 'tmux: server', args: ['tmux', '-L', 'claude-swarm-100'], ...AT },
      { pid: 121, ppid: 120, pgid: 121, args: ['claude', '--agent-id', 'r1@team'], ...AT },
    ];
    const env: Record<number, Record<string, string>> = { 120: OURS, 121: OURS };
    const input = {
      table: fakeTable(world),
      session: SESSION,
      rules,
      readMarkers: ((identity) => new Map(Object.entries(env[identity.pid] ?? {}))) as MarkerReader,
      exclude: new Set<number>(),
      liveRoots: new Set<string>(),
      now: 6000,
    };
    expect(findSessionLeftovers({ ...input, tmuxClientsOf: () => 1 })).toBeNull();
    expect(findSessionLeftovers({ ...input, tmuxClientsOf: () => null })).toBeNull();
    const unwatched = findSessionLeftovers({ ...input, tmuxClientsOf: () => 0 });
    expect(unwatched?.processes.map((process) => process.entry.pid).sort()).toEqual([120, 121]);
  });

  it("takes the id's carriers and their descendants, and nothing else", () => {
    const leak = findSessionLeftovers({
      table: fakeTable(WORLD),
      session: SESSION,
      rules,
      readMarkers: reader,
      exclude: new Set(),
      liveRoots: new Set(),
      now: 6000,
    });
    expect(leak?.processes.map((process) => process.entry.pid).sort()).toEqual([101, 102, 108]);
    expect(leak?.root).toEqual({ pid: 100, startTime: 'st-100' });
  });

  it('never takes an excluded pid (the hook ancestors) or a live session root', () => {
    const leak = findSessionLeftovers({
      table: fakeTable(WORLD),
      session: SESSION,
      rules,
      readMarkers: reader,
      exclude: new Set([101]),
      liveRoots: new Set(['108:st-108']),
      now: 6000,
    });
    expect(leak).toBeNull();
  });
});
