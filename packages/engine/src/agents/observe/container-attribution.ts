/**
 * Attributes containers to agent sessions as the engine creates them. On a `create` event the live
 * engine CLIs are read from /proc with their ancestry (pid + start time of each ancestor): a CLI
 * whose ancestry holds a session's root or member created it — strong evidence, and the only kind
 * available for `docker run -d`, whose CLI exits at once. A create whose ancestry reaches no known
 * session yet (the watcher finds new sessions on full scans) waits for the next sessions update.
 * Two sessions' CLIs equally matching one create attribute it to neither: a wrong owner is worse.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { ContainerEvidence } from '../../containers/container-evidence.js';
import { inspectContainer } from '../../containers/engine-api.js';
import type { ContainerEvent } from '../../containers/engine-events.js';
import { parseCmdline } from '../../table/linux-entry.js';
import { readStatFields } from '../../table/linux-stat.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';
import { bestCliMatches, type CliProcess, engineCliVerb, isInteractiveRun } from '../sessions/container-match.js';
import { forgetStoredContainer, writeStoredContainer } from '../sessions/container-store.js';
import type { StoredSession } from '../sessions/store-schema.js';

/** A create not yet explained waits this long for its session to be found. */
const PENDING_MS = 30_000;
const MAX_ANCESTRY = 64;

interface CliWithAncestry extends CliProcess {
  /** Itself first, then each parent up to pid 1. */
  readonly ancestry: readonly ProcessIdentity[];
}

interface PendingCreate {
  readonly id: string;
  readonly clis: readonly CliWithAncestry[];
  readonly untilMs: number;
}

/** The engine CLIs alive now, with their ancestry; one stat read per process, argv only for CLIs. */
export function readEngineClis(): CliWithAncestry[] {
  const stats = new Map<number, { ppid: number; startTime: string; command: string }>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const fields = readStatFields(pid);
    if (fields !== null) stats.set(pid, { ppid: fields.ppid, startTime: fields.startTicks, command: fields.command });
  }
  const out: CliWithAncestry[] = [];
  for (const [pid, stat] of stats) {
    if (!/^(?:docker|podman|nerdctl|docker-compose|podman-compose)$/.test(stat.command)) continue;
    let raw: Buffer;
    try {
      raw = readFileSync(`/proc/${pid}/cmdline`);
    } catch {
      continue;
    }
    const args = parseCmdline(raw);
    if (engineCliVerb(args) === null) continue;
    let cwd: string | null = null;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // Not ours to read: a compose match by cwd is then not possible.
    }
    const ancestry: ProcessIdentity[] = [];
    let at: number | undefined = pid;
    while (at !== undefined && at > 0 && ancestry.length < MAX_ANCESTRY) {
      const s = stats.get(at);
      if (s === undefined) break;
      ancestry.push({ pid: at, startTime: s.startTime });
      at = s.ppid;
    }
    out.push({ pid, startTime: stat.startTime, args, cwd, ancestry });
  }
  return out;
}

/** Live sessions by the identity of their root and each member. */
function sessionIndex(sessions: readonly StoredSession[]): Map<string, { session: StoredSession; role: string }> {
  const index = new Map<string, { session: StoredSession; role: string }>();
  for (const session of sessions) {
    if (session.endedAtMs !== null) continue;
    index.set(identityKey(session.root), { session, role: 'agent' });
    for (const member of session.members) index.set(identityKey(member), { session, role: member.role });
  }
  return index;
}

export interface Attribution {
  readonly sessionId: string;
  readonly evidence: ContainerEvidence;
}

/** The one session the matching CLIs belong to, with the evidence; null when none or ambiguous. */
export function attributeToSession(
  clis: readonly CliWithAncestry[],
  sessions: readonly StoredSession[],
): Attribution | null {
  const index = sessionIndex(sessions);
  const found = new Map<string, Attribution>();
  for (const cli of clis) {
    const hit = cli.ancestry.map((identity) => index.get(identityKey(identity))).find((h) => h !== undefined);
    if (hit === undefined) continue;
    const asMember = index.get(identityKey(cli));
    const mcp = asMember?.role === 'mcp-server' || (asMember !== undefined && isInteractiveRun(cli.args));
    const words = cli.args.slice(0, 3).join(' ');
    found.set(hit.session.id, {
      sessionId: hit.session.id,
      evidence: mcp
        ? { kind: 'mcp-server', detail: `MCP server member ${cli.pid} (${words} -i) created it` }
        : { kind: 'creating-cli-member', detail: `${words} (pid ${cli.pid}) of the session created it` },
    });
  }
  return found.size === 1 ? ([...found.values()][0] as Attribution) : null;
}

export interface AttributorOptions {
  readonly stateRoot: string;
  readonly socketPath: string;
  /** Injected by the bench and tests to see each attribution as it lands. */
  readonly onAttributed?: (id: string, sessionId: string, atMs: number) => void;
}

export class ContainerAttributor {
  #sessions: readonly StoredSession[] = [];
  #pending: PendingCreate[] = [];
  readonly #options: AttributorOptions;

  constructor(options: AttributorOptions) {
    this.#options = options;
  }

  /** The watcher's sessions after each tick; creates that waited for their session are judged again. */
  setSessions(sessions: readonly StoredSession[], now = Date.now()): Promise<void> {
    this.#sessions = sessions;
    const waiting = this.#pending.filter((p) => p.untilMs > now);
    this.#pending = [];
    return Promise.all(waiting.map((p) => this.#judge(p))).then(() => undefined);
  }

  onEvent(event: ContainerEvent): Promise<void> {
    if (event.action === 'destroy') {
      forgetStoredContainer(this.#options.stateRoot, event.id);
      return Promise.resolve();
    }
    if (event.action !== 'create') return Promise.resolve();
    const clis = bestCliMatches(readEngineClis(), event.attributes);
    if (clis.length === 0) return Promise.resolve();
    return this.#judge({ id: event.id, clis, untilMs: event.receivedAtMs + PENDING_MS });
  }

  async #judge(pending: PendingCreate): Promise<void> {
    const attribution = attributeToSession(pending.clis, this.#sessions);
    if (attribution === null) {
      this.#pending.push(pending);
      return;
    }
    const info = await inspectContainer(this.#options.socketPath, pending.id).catch(() => null);
    if (info === null) return; // Gone already, or the engine will not say: nothing to remember.
    const atMs = Date.now();
    writeStoredContainer(this.#options.stateRoot, {
      version: 1,
      id: info.id,
      sessionId: attribution.sessionId,
      name: info.name,
      image: info.image,
      createdAtMs: info.createdAtMs,
      attributedAtMs: atMs,
      evidence: [attribution.evidence],
    });
    this.#options.onAttributed?.(info.id, attribution.sessionId, atMs);
  }
}
