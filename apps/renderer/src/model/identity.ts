import type { Identity, ProcessNode } from '@treewarden/protocol';

/** The `pid:startTime` key the host uses in systemDiff.removed (one home: the protocol's identity-key). */
export { identityKey } from '@treewarden/protocol';

export function identityOf(node: ProcessNode): Identity {
  return { pid: node.pid, startTime: node.startTime };
}

const ZOMBIE_STATE_CODE = 'Z'.charCodeAt(0);

/** State Z. A char code, not startsWith: the system view asks this of thousands of processes per poll. */
export function isZombie(node: Pick<ProcessNode, 'state'>): boolean {
  return node.state.charCodeAt(0) === ZOMBIE_STATE_CODE;
}
