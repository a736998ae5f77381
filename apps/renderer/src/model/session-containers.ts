/**
 * Which of a session's containers its clean-up would stop, by the rule `orphans --clean [--all]`
 * follows: only once the session ended, only containers still running, strongly attributed ones
 * by default and weak ones (compose dir, bind mount) only when the user asks for all.
 */
import type { SessionContainerRow, SessionView } from '@treewarden/protocol';

/** States in which a container still runs something (what a stop would end). */
const RUNNING_STATES: ReadonlySet<string> = new Set(['running', 'paused', 'restarting']);

export interface ContainerLeftovers {
  /** Stopped by the session's "Clean up". */
  strong: SessionContainerRow[];
  /** Stopped only by "Clean up all", after their own listing. */
  weak: SessionContainerRow[];
}

export function containerLeftovers(session: Pick<SessionView, 'state' | 'containers'>): ContainerLeftovers {
  if (session.state !== 'ended') return { strong: [], weak: [] };
  const running = (session.containers ?? []).filter((c) => RUNNING_STATES.has(c.state));
  return { strong: running.filter((c) => c.strength === 'strong'), weak: running.filter((c) => c.strength === 'weak') };
}

/** One confirmation line: what will be stopped (name, image, id) and why it is the session's. */
export function containerCleanLine(container: SessionContainerRow): string {
  const why = container.evidence.map((e) => e.detail).join('; ');
  return `container ${container.name} (${container.image}) ${container.id.slice(0, 12)}, ${container.strength}${why ? ` — ${why}` : ''}`;
}

export function containerTargetsOf(containers: readonly SessionContainerRow[]) {
  return containers.map(({ id, createdAtMs }) => ({ id, createdAtMs }));
}
