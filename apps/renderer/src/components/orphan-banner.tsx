/**
 * A banner that cannot be missed while leaked processes are alive. Its count is the snapshot's
 * one list of leaks (the header, the sidebar and the window title count the same list), agent
 * sessions' leaks included. "Clean up all" ends the leaks of runs on record and of remembered agent
 * sessions (its dialog lists each one and what it leaves); trees of a run cookie
 * this state dir never recorded ("unregistered") end only through a separate, confirmed action,
 * as `orphans --clean --all`; agent leaks through their own confirmation listing what it signals,
 * and trees found from agent markers alone through another.
 */
import type { OrphanView } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { cleanKey, requestCleanOrphans } from '../actions/actions';
import { agentCleanKey, confirmAgentClean } from '../actions/agent-actions';
import { describeSources, ROLE_LABELS, splitAgentLeaks } from '../model/agent-leaks';
import { useAppStore } from '../store/store';
import { useBannerFold } from './banner-toggle';
import { Prose, useProseTitle } from './prose';

/** How many leaked processes the banner names before summarising the rest. */
const NAMED_ORPHANS = 3;

function describeOrphan(orphan: OrphanView): string {
  const run = orphan.runId ? ` (run ${orphan.runId})` : '';
  return `pid ${orphan.process.pid} ${orphan.process.commandLine || orphan.process.command}${run}`;
}

/** Agent sessions named in the banner with why they count as dead (once per session, not per process). */
const NAMED_AGENT_EVIDENCE = 2;

function agentEvidence(orphans: readonly OrphanView[]): string[] {
  const whys = new Set(
    orphans.flatMap((orphan) => (orphan.kind === 'agent' && orphan.reasons[0] ? [orphan.reasons[0]] : [])),
  );
  return [...whys].slice(0, NAMED_AGENT_EVIDENCE);
}

export function OrphanBanner() {
  const orphans = useAppStore(useShallow((state) => state.snapshot?.orphans ?? []));
  const cleaning = useAppStore((state) => cleanKey() in state.pending);
  const cleaningAll = useAppStore((state) => cleanKey(undefined, true) in state.pending);
  const askClean = useAppStore((state) => state.askClean);
  const askConfirm = useAppStore((state) => state.askConfirm);
  const agentCleaning = useAppStore(
    (state) => agentCleanKey() in state.pending || agentCleanKey(undefined, true) in state.pending,
  );
  const { foldClass, toggle } = useBannerFold();
  const titleOf = useProseTitle();
  if (orphans.length === 0) return null;
  const agent = splitAgentLeaks(orphans);
  const recorded = orphans.filter((orphan) => orphan.kind === 'over');
  const unregistered = orphans.filter((orphan) => orphan.kind === 'unregistered');
  const confirmUnregistered = () =>
    askConfirm({
      title: `End ${unregistered.length} unregistered process${unregistered.length === 1 ? '' : 'es'}${
        recorded.length > 0 ? ` and ${recorded.length} leaked one${recorded.length === 1 ? '' : 's'}` : ''
      }?`,
      lines: [
        'Unregistered: they carry a run cookie this state dir never recorded; another Treewarden or tool may still supervise them.',
        ...orphans.map(describeOrphan),
      ],
      confirmLabel: 'End them',
      onConfirm: () => void requestCleanOrphans(undefined, true),
    });
  return (
    <div className={`banner banner-danger${foldClass}`} role="alert" data-testid="orphan-banner">
      <span className="banner-icon" aria-hidden="true">
        ⚠
      </span>
      <div className="banner-body">
        <strong data-testid="orphan-count">
          {orphans.length} leaked process{orphans.length === 1 ? '' : 'es'} from {describeSources(orphans)} still alive.
        </strong>{' '}
        <span className="banner-list">
          {orphans.slice(0, NAMED_ORPHANS).map((orphan) => (
            <span
              key={`${orphan.process.pid}:${orphan.process.startTime}`}
              className="banner-orphan"
              title={titleOf(orphan.reasons.join('\n'))}
            >
              pid {orphan.process.pid} <code>{orphan.process.command}</code>
              {orphan.runId ? ` (${orphan.runId})` : ''}
              {orphan.kind === 'unregistered' ? ' · unregistered' : ''}
              {orphan.kind === 'agent' ? ` (${orphan.agent ?? 'agent'} ${ROLE_LABELS[orphan.role ?? 'other']})` : ''}
              {orphan.kind !== 'agent' && orphans.length === 1 && orphan.reasons[0] ? (
                <>
                  {' — '}
                  <Prose text={orphan.reasons[0]} />
                </>
              ) : null}
            </span>
          ))}
          {orphans.length > NAMED_ORPHANS ? <span> and {orphans.length - NAMED_ORPHANS} more</span> : null}
        </span>
        {agentEvidence(orphans).map((why) => (
          <span key={why} className="banner-evidence">
            {' '}
            — <Prose text={why} />
          </span>
        ))}
      </div>
      {toggle}
      {recorded.length > 0 || agent.remembered.length > 0 ? (
        <button
          type="button"
          className="btn btn-danger"
          disabled={cleaning || cleaningAll || agentCleaning}
          onClick={() => askClean({ runId: null })}
          title="End the leaks of recorded runs and agent sessions; lists each one first (unregistered and markers-only trees stay)"
        >
          {cleaning ? 'Cleaning…' : 'Clean up all'}
        </button>
      ) : null}
      {unregistered.length > 0 ? (
        <button
          type="button"
          className="btn"
          disabled={cleaning || cleaningAll}
          onClick={confirmUnregistered}
          title="Trees of a run cookie this state dir never recorded: ending them asks first"
        >
          {cleaningAll ? 'Ending…' : `End ${unregistered.length} unregistered…`}
        </button>
      ) : null}
      {agent.remembered.length > 0 ? (
        <button
          type="button"
          className="btn btn-danger"
          disabled={agentCleaning}
          onClick={() => confirmAgentClean(agent.remembered)}
          title="Members that outlived their agent session: lists what it will signal, then ends exactly those"
        >
          {agentCleaning
            ? 'Cleaning…'
            : `Clean up ${agent.remembered.length} agent leak${agent.remembered.length === 1 ? '' : 's'}…`}
        </button>
      ) : null}
      {agent.markersOnly.length > 0 ? (
        <button
          type="button"
          className="btn"
          disabled={agentCleaning}
          onClick={() => confirmAgentClean(agent.markersOnly, { markersOnly: true })}
          title="Found from agent markers alone (no observer saw their session live): ending them asks separately"
        >
          {`End ${agent.markersOnly.length} found from markers…`}
        </button>
      ) : null}
    </div>
  );
}
