import type { Identity, ProcessNode } from '@treewarden/protocol';

/** The `pid:startTime` key the host uses in systemDiff.removed; a pid alone is never an identity. */
export function identityKey(identity: Pick<Identity, 'pid' | 'startTime'>): string {
  return `${identity.pid}:${identity.startTime}`;
}

export function identityOf(node: ProcessNode): Identity {
  return { pid: node.pid, startTime: node.startTime };
}

export function isZombie(node: Pick<ProcessNode, 'state'>): boolean {
  return node.state.startsWith('Z');
}
