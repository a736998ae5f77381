/** Errors the owner raises instead of signalling. */
import type { ProcessEntry, ProcessIdentity } from '../table/types.js';

/** The whole signal is refused: ownership can no longer be proven for some pid or group. */
export class IdentityUncertainError extends Error {
  constructor(detail: string) {
    super(`identity became uncertain: ${detail}`);
    this.name = 'IdentityUncertainError';
  }
}

export function recycledPidError(owned: ProcessIdentity, now: ProcessEntry, role = 'pid'): IdentityUncertainError {
  return new IdentityUncertainError(
    `${role} ${owned.pid} now has start time ${now.startTime}, expected ${owned.startTime} (the pid was recycled; nothing was signalled)`,
  );
}

export function unownedMemberError(pgid: number, member: ProcessEntry): IdentityUncertainError {
  const name = member.command ? ` (${member.command})` : '';
  return new IdentityUncertainError(
    `process group ${pgid} holds live pid ${member.pid}${name} that this tree does not own; refusing to signal the group`,
  );
}

/** A group signal answered EPERM while a running member remains: fatal, the kill cannot proceed. */
export class GroupEpermError extends Error {
  readonly code = 'EPERM';
  constructor(
    readonly pgid: number,
    running: readonly number[],
  ) {
    super(
      `EPERM signalling process group ${pgid}: running member(s) ${running.join(', ')} remain; ` +
        'they belong to another user or are protected, so this tree cannot be ended from here',
    );
    this.name = 'GroupEpermError';
  }
}

export class ProcessEpermError extends Error {
  readonly code = 'EPERM';
  constructor(pid: number) {
    super(`EPERM signalling pid ${pid}: not permitted (another user's process, or protected)`);
    this.name = 'ProcessEpermError';
  }
}

/** No table could be read, so nothing could be revalidated. */
export class NoTableError extends Error {
  constructor() {
    super('no process table could be read (the inspector failed or passed its bound); nothing was signalled');
    this.name = 'NoTableError';
  }
}
