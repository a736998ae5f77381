/**
 * tmux servers of agent sessions. A tmux server is forked by its first client and keeps that
 * client's argv (only its `comm` becomes `tmux: server`), so its socket is read from its own argv:
 * `-S PATH` or `-L NAME` (under `$TMUX_TMPDIR`, default `/tmp`, `tmux-UID/NAME`), else `default`.
 * A server belongs to a live session when:
 * - it is an agent team's (`claude-swarm-PID`: Claude Code names its team socket after the lead's
 *   pid) and PID is the session's root or its relaunched agent process, started no later than the server;
 * - or its creating client is a member: a member tmux client on the same socket that started at
 *   most CREATOR_WINDOW_MS before the server did (the client forks the server as it starts).
 * - or its creating client ran in the session and is gone (a shell tool's `tmux new -d` returns at
 *   once, and so does the shell): the server keeps its client's environment and cwd, so it carries
 *   the agent's own markers, started after the session's root, in the session's directory, and no
 *   other live session of that agent fits (markedServerSession). A person's own tmux carries no
 *   agent's markers; one that an ended session started and remembered stays that session's.
 * A team's server with a client attached (someone is watching it) is never a leftover.
 */
import type { ProcessEntry, ProcessTable } from '../../table/types.js';
import { type MarkerHit, sessionKeysOf, TMUX_CLIENT_COMMAND, TMUX_SERVER_COMMAND } from '../rules/match.js';

/** A client forks the server within its first moments; later servers on that socket are not its. */
export const CREATOR_WINDOW_MS = 2000;
const SWARM_SOCKET = /^claude-swarm-(\d{1,10})$/;

/** The socket a tmux process names in its argv: `S:PATH`, `L:NAME` (`L:default` when none). */
export function tmuxSocketOf(args: readonly string[]): string {
  // tmux's options come before its command; `-L`/`-S` take a value, joined or separate.
  for (let i = 1; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (!arg.startsWith('-') || arg === '--') break;
    for (const flag of ['-S', '-L']) {
      if (arg === flag) return `${flag[1]}:${args[i + 1] ?? ''}`;
      if (arg.startsWith(flag)) return `${flag[1]}:${arg.slice(2)}`;
    }
    if (/^-[fcT]$/.test(arg)) i += 1; // Options with a separate value that is not the socket.
  }
  return 'L:default';
}

/** The socket's own name: `-L`'s name, or the last part of `-S`'s path. */
function socketName(socket: string): string {
  const value = socket.slice(2);
  return socket.startsWith('S:') ? (value.split('/').at(-1) ?? '') : value;
}

/** The lead's pid a Claude team socket is named after (`claude-swarm-PID`), or null. */
export function swarmLeadPid(socket: string): number | null {
  const match = SWARM_SOCKET.exec(socketName(socket));
  return match === null ? null : Number(match[1]);
}

export function isTmuxServer(entry: ProcessEntry): boolean {
  return entry.command === TMUX_SERVER_COMMAND;
}

/** Live tmux clients of the same user attached to `server`'s socket. */
export function attachedClients(server: ProcessEntry, table: ProcessTable): ProcessEntry[] {
  const socket = tmuxSocketOf(server.args);
  return [...table.entries.values()].filter(
    (entry) =>
      entry.command === TMUX_CLIENT_COMMAND &&
      entry.uid === server.uid &&
      entry.state !== 'Z' &&
      tmuxSocketOf(entry.args) === socket,
  );
}

export interface TeamServerEvidence {
  readonly server: ProcessEntry;
  readonly why: string;
}

/**
 * Why `server` belongs to a session whose agent processes are `agents` (root first) and whose
 * members are `members`, or null. Both ties are checked against start times, so a recycled pid or
 * an older server on a reused socket name is not taken.
 */
export function teamServerEvidence(
  server: ProcessEntry,
  agents: readonly ProcessEntry[],
  members: readonly ProcessEntry[],
): string | null {
  const socket = tmuxSocketOf(server.args);
  const lead = swarmLeadPid(socket);
  const leader = agents.find((agent) => agent.pid === lead);
  if (leader !== undefined && server.startedAtMs >= leader.startedAtMs && leader.startedAtMs > 0)
    return `agent team tmux server ${socketName(socket)}: named after the session's agent pid ${leader.pid}`;
  const creator = members.find(
    (member) =>
      member.command === TMUX_CLIENT_COMMAND &&
      tmuxSocketOf(member.args) === socket &&
      server.startedAtMs >= member.startedAtMs &&
      server.startedAtMs - member.startedAtMs <= CREATOR_WINDOW_MS,
  );
  if (creator !== undefined)
    return `tmux server on ${socketName(socket)}: created by member tmux client ${creator.pid}`;
  return null;
}

/** Whether `dir` is `root` or below it. */
function isWithin(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * The one live session whose shell created `server` and is gone: the server carries the `started`
 * markers of the session's agent (and none naming a session: those are the marker tie's), started
 * no earlier than the session's root, and its cwd (its client's) is the root's directory or below.
 * Two sessions fitting equally name neither (a wrong owner is worse than none).
 */
export function markedServerSession<S extends { readonly agent: string; readonly root: ProcessEntry }>(
  server: ProcessEntry,
  hits: readonly MarkerHit[],
  sessions: readonly S[],
): { readonly session: S; readonly why: string } | null {
  const cwd = server.cwd;
  if (cwd === null || sessionKeysOf(hits).length > 0) return null;
  const started = hits.filter((hit) => hit.on === 'started');
  const fits = sessions.filter(
    (session) =>
      started.some((hit) => hit.agent === session.agent) &&
      session.root.startedAtMs > 0 &&
      server.startedAtMs >= session.root.startedAtMs &&
      session.root.cwd !== null &&
      isWithin(cwd, session.root.cwd),
  );
  const [session] = fits;
  if (fits.length !== 1 || session === undefined) return null;
  const marker = started.find((hit) => hit.agent === session.agent) as MarkerHit;
  return {
    session,
    why: `tmux server on ${socketName(tmuxSocketOf(server.args))}: created from the session (its client's environment has ${marker.name}=${marker.value.slice(0, 40)}, its cwd ${cwd} is the session's directory, started after the session's agent)`,
  };
}
