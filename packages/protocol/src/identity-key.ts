/**
 * The one spelling of a process identity as a map key, for the engine, the host and the renderer
 * alike (the host's systemDiff.removed carries these keys). A pid alone is never an identity: the
 * start time is what tells a process from the one that recycled its pid. Import-free.
 */
export interface IdentityLike {
  readonly pid: number;
  readonly startTime: string;
}

export function identityKey(identity: IdentityLike): string {
  return `${identity.pid}:${identity.startTime}`;
}
