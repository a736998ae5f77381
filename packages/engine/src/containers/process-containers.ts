/**
 * Which container each process of a table runs in, cheaply: only descendants of a container shim
 * (`containerd-shim*`, podman's `conmon`) can be in one, so only their `/proc/PID/cgroup` is read,
 * and a process's answer is kept by identity (`pid:startTime`): a process never changes container.
 * With no engine socket nothing is read at all, so machines without containers pay nothing.
 */
import { readFileSync } from 'node:fs';
import { indexChildren } from '../table/trees.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';
import { type CgroupContainer, containerFromCgroup } from './cgroup-id.js';
import { type ContainerInfo, listContainers } from './engine-api.js';
import { findEngineSocket } from './engine-socket.js';

const SHIM_COMMAND = /^(?:containerd-shim|conmon)/;

/** What a process table row shows of its container. */
export interface ProcessContainer {
  readonly id: string;
  readonly runtime: CgroupContainer['runtime'];
  /** From the engine; null when the engine could not be asked or no longer lists it. */
  readonly name: string | null;
  readonly image: string | null;
}

export type CgroupReader = (pid: number) => string | null;

const readCgroup: CgroupReader = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return null; // Gone, or not ours to read: no container known.
  }
};

/** Pids below any shim (the shims themselves sit in the host's cgroup). */
export function shimDescendants(entries: ReadonlyMap<number, ProcessEntry>): number[] {
  const children = indexChildren(entries);
  const out: number[] = [];
  const stack = [...entries.values()].filter((e) => SHIM_COMMAND.test(e.command)).map((e) => e.pid);
  const seen = new Set(stack);
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    for (const kid of children.get(pid) ?? []) {
      if (seen.has(kid)) continue;
      seen.add(kid);
      out.push(kid);
      stack.push(kid);
    }
  }
  return out;
}

export interface ContainerResolverOptions {
  /** Injected only where this machine cannot produce the layout (other runtimes' cgroup paths). */
  readonly readCgroup?: CgroupReader;
  readonly socketPath?: string | null;
}

/** Keeps each process's container by identity across reads; asks the engine once per resolve. */
export class ContainerResolver {
  readonly #byIdentity = new Map<string, CgroupContainer | null>();
  readonly #readCgroup: CgroupReader;
  readonly #socketPath: string | null | undefined;

  constructor(options: ContainerResolverOptions = {}) {
    this.#readCgroup = options.readCgroup ?? readCgroup;
    this.#socketPath = options.socketPath;
  }

  /** pid → container for every process of the table that runs in one. */
  async resolve(table: ProcessTable): Promise<Map<number, ProcessContainer>> {
    const socket = this.#socketPath === undefined ? findEngineSocket() : this.#socketPath;
    const out = new Map<number, ProcessContainer>();
    if (socket === null) return out;
    const live = new Set<string>();
    const found = new Map<number, CgroupContainer>();
    for (const pid of shimDescendants(table.entries)) {
      const entry = table.entries.get(pid);
      if (entry === undefined) continue;
      const key = `${entry.pid}:${entry.startTime}`;
      live.add(key);
      let hit = this.#byIdentity.get(key);
      if (hit === undefined) {
        const text = this.#readCgroup(pid);
        hit = text === null ? null : containerFromCgroup(text);
        this.#byIdentity.set(key, hit);
      }
      if (hit !== null) found.set(pid, hit);
    }
    // Forget identities that left the table, so the cache stays the size of the live containers.
    for (const key of this.#byIdentity.keys()) if (!live.has(key)) this.#byIdentity.delete(key);
    if (found.size === 0) return out;
    const known = await listContainers(socket).catch((): ContainerInfo[] => []);
    const byId = new Map(known.map((c) => [c.id, c]));
    for (const [pid, { id, runtime }] of found) {
      const info = byId.get(id);
      out.set(pid, { id, runtime, name: info?.name ?? null, image: info?.image ?? null });
    }
    return out;
  }
}
