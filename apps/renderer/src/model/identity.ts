import type { Identity, ProcessNode } from '@treewarden/protocol';

/** The `pid:startTime` key the host uses in systemDiff.removed; a pid alone is never an identity. */
export function identityKey(identity: Pick<Identity, 'pid' | 'startTime'>): string {
  return `${identity.pid}:${identity.startTime}`;
}

export function identityOf(node: ProcessNode): Identity {
  return { pid: node.pid, startTime: node.startTime };
}

const ZOMBIE_STATE_CODE = 'Z'.charCodeAt(0);

/** State Z. A char code, not startsWith: the system view asks this of thousands of processes per poll. */
export function isZombie(node: Pick<ProcessNode, 'state'>): boolean {
  return node.state.charCodeAt(0) === ZOMBIE_STATE_CODE;
}
