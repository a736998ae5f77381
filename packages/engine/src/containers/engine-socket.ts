/**
 * Where the container engine listens: `DOCKER_HOST` when it names a unix socket, else Docker's
 * default socket, else podman's Docker-compatible sockets (rootful, then the user's). Only a stat
 * per candidate, so callers can ask on every read and stay off the network when none exists.
 */
import { statSync } from 'node:fs';

const DOCKER_DEFAULT_SOCKET = '/var/run/docker.sock';
const PODMAN_ROOTFUL_SOCKET = '/run/podman/podman.sock';
const UNIX_SCHEME = 'unix://';

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

/** Candidate sockets in the order they are tried (exported for the tests and for messages). */
export function engineSocketCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const candidates: string[] = [];
  const host = env.DOCKER_HOST;
  // A tcp:// or ssh:// DOCKER_HOST is not ours to reach: only local sockets are read.
  if (host?.startsWith(UNIX_SCHEME) === true) candidates.push(host.slice(UNIX_SCHEME.length));
  candidates.push(DOCKER_DEFAULT_SOCKET, PODMAN_ROOTFUL_SOCKET);
  if (env.XDG_RUNTIME_DIR !== undefined) candidates.push(`${env.XDG_RUNTIME_DIR}/podman/podman.sock`);
  return candidates;
}

/** The first candidate that exists as a socket, or null (no engine: nothing container-related runs). */
export function findEngineSocket(env: NodeJS.ProcessEnv = process.env): string | null {
  return engineSocketCandidates(env).find(isSocket) ?? null;
}
