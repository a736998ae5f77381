/** Small status chips: process state, classification, run phase, holder state. */
import type { Classification, HolderState, RunPhase } from '@treewarden/protocol';

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

export function ClassificationBadge({ classification }: { classification: string }) {
  const tone = CLASSIFICATION_TONE[classification as Classification] ?? 'muted';
  return (
    <span className={`badge badge-${tone}`} data-classification={classification}>
      {classification.replace('_', ' ')}
    </span>
  );
}

export function PhaseBadge({ phase }: { phase: RunPhase }) {
  return <span className={`badge badge-phase badge-phase-${phase}`}>{phase}</span>;
}

export function HolderDot({ state }: { state: HolderState }) {
  return <span className={`dot dot-${state}`} title={`holder ${state}`} />;
}
