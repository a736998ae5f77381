/**
 * "Clean up" asks first, like a single kill: it lists every process it will end (one compact row
 * each, evidence in the row) with the count, and for "Clean up all" also what the banner counts but
 * this action leaves for its own confirmation, so the two numbers always add up. "Clean up all"
 * also stops ended sessions' strongly attributed leftover containers, each listed by name, image
 * and id; weakly attributed ones are left to their session's own "Clean up all, weak too".
 */
import type { OrphanView } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { requestCleanOrphans } from '../actions/actions';
import { requestCleanAgentLeaks, requestStopContainers } from '../actions/agent-actions';
import { ROLE_LABELS, targetsOf } from '../model/agent-leaks';
import { cleanPlan } from '../model/clean-plan';
import { shortenCommandLine } from '../model/format';
import { containerCleanLine, containerLeftovers } from '../model/session-containers';
import { useAppStore } from '../store/store';
import { ClockTime } from './clock-time';
import { ConfirmDialog } from './confirm-dialog';
import { Prose } from './prose';

function processes(count: number): string {
  return `${count} leaked process${count === 1 ? '' : 'es'}`;
}

function owner(orphan: OrphanView): string {
  if (orphan.kind === 'agent') return `${orphan.agent ?? 'agent'} ${ROLE_LABELS[orphan.role ?? 'other']}`;
  return orphan.runId ? `run ${orphan.runId}` : 'run';
}

export function CleanConfirm() {
  const request = useAppStore((state) => state.confirmClean);
  const askClean = useAppStore((state) => state.askClean);
  const orphans = useAppStore(useShallow((state) => state.snapshot?.orphans ?? []));
  const sessions = useAppStore(useShallow((state) => state.snapshot?.sessions ?? []));
  const plan = cleanPlan(orphans, request?.runId ?? null);
  // A run's own clean-up stops no container: containers belong to agent sessions.
  const containers = request?.runId ? [] : sessions.flatMap((session) => containerLeftovers(session).strong);
  const confirm = () => {
    if (!request) return;
    askClean(null);
    if (plan.runLeaks.length > 0 || request.runId) void requestCleanOrphans(request.runId ?? undefined);
    if (plan.agentLeaks.length > 0) void requestCleanAgentLeaks(targetsOf(plan.agentLeaks));
    if (containers.length > 0) void requestStopContainers(containers);
  };
  const left = plan.separate.unregistered.length + plan.separate.markersOnly.length;
  const stops =
    containers.length > 0 ? ` and stop ${containers.length} container${containers.length === 1 ? '' : 's'}` : '';
  const title = request?.runId
    ? `End ${processes(plan.ends.length)} of ${request.runId}?`
    : `End all ${processes(plan.ends.length)}${stops}?`;
  return (
    <ConfirmDialog
      label="Confirm clean-up"
      open={request !== null}
      title={title}
      confirmLabel="Clean up"
      onConfirm={confirm}
      onCancel={() => askClean(null)}
    >
      {/* Focusable and named so the list scrolls from the keyboard when it is longer than the dialog (axe scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll */}
      <ul className="dialog-list clean-list" data-testid="clean-targets" tabIndex={0} aria-label="Processes to end">
        {plan.ends.map((orphan) => (
          <li key={`${orphan.process.pid}:${orphan.process.startTime}`} className="clean-target">
            pid <strong>{orphan.process.pid}</strong> <span className="muted">{owner(orphan)}</span>{' '}
            <code>{shortenCommandLine(orphan.process.commandLine || orphan.process.command)}</code>{' '}
            <span className="muted">
              started <ClockTime atMs={orphan.process.startedAtMs} withDay />
              {orphan.reasons[0] ? (
                <>
                  {' · '}
                  <Prose text={orphan.reasons[0]} />
                </>
              ) : null}
            </span>
          </li>
        ))}
        {plan.ends.length === 0 ? <li className="muted">None is alive any more; nothing will be signalled.</li> : null}
      </ul>
      {containers.length > 0 ? (
        <ul className="dialog-list clean-list" data-testid="clean-containers" aria-label="Containers to stop">
          {containers.map((container) => (
            <li key={container.id} className="clean-target">
              {containerCleanLine(container)}
            </li>
          ))}
        </ul>
      ) : null}
      {left > 0 ? (
        <p className="muted" data-testid="clean-left">
          Not ended by this:{' '}
          {plan.separate.unregistered.length > 0 ? `${plan.separate.unregistered.length} unregistered` : ''}
          {plan.separate.unregistered.length > 0 && plan.separate.markersOnly.length > 0 ? ' and ' : ''}
          {plan.separate.markersOnly.length > 0
            ? `${plan.separate.markersOnly.length} found from agent markers alone`
            : ''}{' '}
          (pid {[...plan.separate.unregistered, ...plan.separate.markersOnly].map((o) => o.process.pid).join(', ')}) —
          weaker evidence, each has its own button that asks first.
        </p>
      ) : null}
      <p className="muted">
        Each one is re-read and identity-checked before any signal; a process that changed is refused, not killed.
        {containers.length > 0
          ? ' Each container is inspected again (id and creation time) and stopped, never removed.'
          : ''}
      </p>
    </ConfirmDialog>
  );
}
