/**
 * The Docker Engine API (and podman's compatible one) over its unix socket, with Node's own `http`
 * (`socketPath`). Plain HTTP rather than a client library: the handful of calls used here (list,
 * inspect, stop, kill) are stable, unversioned paths, and a library (dockerode and its
 * docker-modem/ssh2 tree) would add a native-optional dependency chain to the engine for them.
 * Every request is bounded in time and size so a stuck engine never stalls a read.
 */
import { request } from 'node:http';

/** A list or inspect answers in milliseconds; a stuck engine must not hold a `ps` longer. */
export const ENGINE_REQUEST_TIMEOUT_MS = 5000;
/** `docker stop` itself waits up to its `t`; the request may take that plus this margin. */
const STOP_MARGIN_MS = 5000;
/** 100 containers list in ~100 kB; anything far beyond is not an answer we should parse. */
export const MAX_ENGINE_RESPONSE_BYTES = 16 * 1024 * 1024;

export class EngineApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'EngineApiError';
  }
}

export interface EngineResponse {
  readonly status: number;
  readonly body: string;
}

/** One request; rejects on a socket error, a timeout or an oversized body (never on an HTTP status). */
export function engineRequest(
  socketPath: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  timeoutMs: number = ENGINE_REQUEST_TIMEOUT_MS,
): Promise<EngineResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { Host: 'docker' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ENGINE_RESPONSE_BYTES) {
          req.destroy(new EngineApiError(`${method} ${path}: response over ${MAX_ENGINE_RESPONSE_BYTES} bytes`, null));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new EngineApiError(`${method} ${path}: no answer in ${timeoutMs} ms`, null)));
    req.on('error', reject);
    req.end();
  });
}

async function json(socketPath: string, path: string): Promise<unknown> {
  const res = await engineRequest(socketPath, 'GET', path);
  if (res.status !== 200) throw new EngineApiError(`GET ${path}: HTTP ${res.status} ${res.body.trim()}`, res.status);
  return JSON.parse(res.body) as unknown;
}

/** One container as the list and inspect calls agree on it. */
export interface ContainerInfo {
  readonly id: string;
  /** Without the API's leading `/`. */
  readonly name: string;
  readonly image: string;
  /** `running`, `exited`, `paused`, `created`, … as the engine says. */
  readonly state: string;
  /** Epoch ms of creation: with the id, the container's identity (ids are not reused, but a check costs nothing). */
  readonly createdAtMs: number;
  readonly labels: Readonly<Record<string, string>>;
  /** `hostPort->containerPort/proto` for each published port. */
  readonly ports: readonly string[];
  /** Host paths bind-mounted into the container (evidence of whose directory it works on). */
  readonly bindSources: readonly string[];
  /** Epoch ms of the last start; from inspect only (the list has no time), else null. */
  readonly startedAtMs: number | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function labelsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, value] of Object.entries(v)) if (typeof value === 'string') out[k] = value;
  return out;
}

function portsOf(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((p) => {
    const inside = `${String(p.PrivatePort ?? '?')}/${str(p.Type) || 'tcp'}`;
    return typeof p.PublicPort === 'number' ? `${p.PublicPort}->${inside}` : inside;
  });
}

function bindSourcesOf(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter(isObject)
    .filter((m) => m.Type === 'bind')
    .map((m) => str(m.Source))
    .filter((s) => s !== '');
}

/** A `/containers/json` row; null when it lacks an id (an answer we do not understand). */
export function parseListedContainer(row: unknown): ContainerInfo | null {
  if (!isObject(row) || typeof row.Id !== 'string') return null;
  const names = Array.isArray(row.Names) ? row.Names.map(str) : [];
  return {
    id: row.Id,
    name: (names[0] ?? '').replace(/^\//, ''),
    image: str(row.Image),
    state: str(row.State),
    createdAtMs: typeof row.Created === 'number' ? row.Created * 1000 : 0,
    labels: labelsOf(row.Labels),
    ports: portsOf(row.Ports),
    bindSources: bindSourcesOf(row.Mounts),
    startedAtMs: null,
  };
}

/** Every container the engine knows (`all`: also stopped ones). */
export async function listContainers(socketPath: string, all = false): Promise<ContainerInfo[]> {
  const body = await json(socketPath, `/containers/json?all=${all ? 1 : 0}`);
  if (!Array.isArray(body)) throw new EngineApiError('GET /containers/json: not a list', 200);
  return body.map(parseListedContainer).filter((c): c is ContainerInfo => c !== null);
}

/** Identity and state of one container, from inspect; null when the engine no longer has it. */
export async function inspectContainer(socketPath: string, id: string): Promise<ContainerInfo | null> {
  const res = await engineRequest(socketPath, 'GET', `/containers/${encodeURIComponent(id)}/json`);
  if (res.status === 404) return null;
  if (res.status !== 200) throw new EngineApiError(`inspect ${id}: HTTP ${res.status} ${res.body.trim()}`, res.status);
  const row = JSON.parse(res.body) as unknown;
  if (!isObject(row) || typeof row.Id !== 'string') throw new EngineApiError(`inspect ${id}: no Id`, 200);
  const config = isObject(row.Config) ? row.Config : {};
  const state = isObject(row.State) ? row.State : {};
  return {
    id: row.Id,
    name: str(row.Name).replace(/^\//, ''),
    image: str(config.Image),
    state: str(state.Status),
    createdAtMs: Date.parse(str(row.Created)) || 0,
    labels: labelsOf(config.Labels),
    ports: [],
    bindSources: bindSourcesOf(row.Mounts),
    startedAtMs: Date.parse(str(state.StartedAt)) || null,
  };
}

/** `POST /containers/{id}/stop?t=`: SIGTERM (or the image's stop signal), SIGKILL after `t` s. 304: already stopped. */
export async function stopContainer(socketPath: string, id: string, graceSeconds: number): Promise<void> {
  const path = `/containers/${encodeURIComponent(id)}/stop?t=${Math.max(0, Math.floor(graceSeconds))}`;
  const res = await engineRequest(socketPath, 'POST', path, graceSeconds * 1000 + STOP_MARGIN_MS);
  if (res.status !== 204 && res.status !== 304)
    throw new EngineApiError(`stop ${id}: HTTP ${res.status} ${res.body.trim()}`, res.status);
}

/** `POST /containers/{id}/kill`; 409 (not running) counts as done. */
export async function killContainer(socketPath: string, id: string): Promise<void> {
  const res = await engineRequest(socketPath, 'POST', `/containers/${encodeURIComponent(id)}/kill`);
  if (res.status !== 204 && res.status !== 409)
    throw new EngineApiError(`kill ${id}: HTTP ${res.status} ${res.body.trim()}`, res.status);
}
