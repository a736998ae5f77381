/**
 * How strongly a container belongs to an agent session. Strong evidence (the creating CLI was a
 * member, or the container is a member MCP server's `docker run -i`) may be cleaned up by default;
 * weak evidence (a compose working dir or a bind mount of the session's directory) only names a
 * likely owner, since any shell in that directory could have made it — clean-up needs `--all`.
 */
export type ContainerEvidenceKind = 'creating-cli-member' | 'mcp-server' | 'compose-working-dir' | 'bind-mount';
export type ContainerEvidenceStrength = 'strong' | 'weak';

export interface ContainerEvidence {
  readonly kind: ContainerEvidenceKind;
  readonly detail: string;
}

const STRONG_KINDS: ReadonlySet<ContainerEvidenceKind> = new Set(['creating-cli-member', 'mcp-server']);

/** The strongest of the evidence found; null when there is none (never attribute without it). */
export function containerEvidenceStrength(evidence: readonly ContainerEvidence[]): ContainerEvidenceStrength | null {
  if (evidence.length === 0) return null;
  return evidence.some((item) => STRONG_KINDS.has(item.kind)) ? 'strong' : 'weak';
}

/** Whether a path (compose working dir, bind-mount source) lies inside the session's directory. */
export function isInsideDirectory(candidate: string, directory: string): boolean {
  const base = directory.endsWith('/') ? directory.slice(0, -1) : directory;
  if (base === '') return false;
  return candidate === base || candidate.startsWith(`${base}/`);
}
