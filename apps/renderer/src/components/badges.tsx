/** Small status chips: process state, classification, run phase, holder state. */
import type { Classification, HolderState, Killer, RunPhase, RunView } from '@treewarden/protocol';

const STATE_NAMES: Record<string, string> = {
  R: 'running',
  S: 'sleeping',
  D: 'disk wait',
  T: 'stopped',
  t: 'traced',
  I: 'idle',
  X: 'dead',
  Z: 'zombie',
};

export function stateName(state: string): string {
  return STATE_NAMES[state.charAt(0)] ?? state;
}

export function StateBadge({ state }: { state: string }) {
  const code = state.charAt(0);
  if (code === 'Z')
    return (
      <span className="badge badge-zombie" title="Zombie: exited, but its parent has not reaped it (counts as stopped)">
        zombie
      </span>
    );
  return (
    <span className={`state state-${code === 'R' ? 'run' : code === 'D' ? 'disk' : code === 'T' ? 'stop' : 'sleep'}`}>
      {stateName(state)}
    </span>
  );
}

const CLASSIFICATION_TONE: Record<Classification, string> = {
  ok: 'good',
  error: 'bad',
  timeout: 'warn',
  kill_failed: 'bad',
  missing_binary: 'bad',
  launch_failure: 'bad',
  usage_limit: 'warn',
  auth_failure: 'warn',
  cancelled: 'muted',
  memory_limit: 'warn',
  process_limit: 'warn',
  cpu_limit: 'warn',
  stalled: 'warn',
};

/**
 * Who ended a run, where the classification alone does not say it: a person's kill reads
 * "cancelled · killed by UI" (never an error); timeout and limits already name themselves.
 */
export const KILLED_BY_TEXT: Record<Killer, string | null> = {
  ui: 'killed by UI',
  cli: 'killed by CLI',
  mcp: 'killed by MCP',
  lease: 'lease ended',
  timeout: null,
  limit: null,
};

export function ClassificationBadge({
  classification,
  killedBy,
  timeoutSeconds,
}: {
  classification: string;
  killedBy?: Killer | null | undefined;
  /** Where known, a timeout says its length: "timed out after 25 s". */
  timeoutSeconds?: number | null | undefined;
}) {
  const tone = CLASSIFICATION_TONE[classification as Classification] ?? 'muted';
  const by = killedBy == null ? null : KILLED_BY_TEXT[killedBy];
  const label =
    classification === 'timeout' && timeoutSeconds != null
      ? `timed out after ${timeoutSeconds} s`
      : classification.replace('_', ' ');
  return (
    <span className={`badge badge-${tone}`} data-classification={classification} data-killed-by={killedBy ?? undefined}>
      {label}
      {by === null ? '' : ` · ${by}`}
    </span>
  );
}

export function PhaseBadge({ phase }: { phase: RunPhase }) {
  return <span className={`badge badge-phase badge-phase-${phase}`}>{phase}</span>;
}

/**
 * A run's state in one word, the same on its card and in its details: how it ended; else
 * "unsupervised" when its holder and guardian are dead (never "running", which would promise a
 * timeout nobody enforces); else its phase.
 */
export function RunStateBadge({ run }: { run: RunView }) {
  if (run.phase === 'ended' && run.classification)
    return (
      <ClassificationBadge
        classification={run.classification}
        killedBy={run.killedBy}
        timeoutSeconds={run.timeoutSeconds}
      />
    );
  if (run.unsupervised)
    return (
      <span
        className="badge badge-bad"
        data-testid="run-unsupervised"
        title="Its lease holder and guardian are both dead: nothing enforces its timeout or ends its tree"
      >
        unsupervised
      </span>
    );
  return <PhaseBadge phase={run.phase} />;
}

export function HolderDot({ state }: { state: HolderState }) {
  return <span className={`dot dot-${state}`} title={`holder ${state}`} />;
}
