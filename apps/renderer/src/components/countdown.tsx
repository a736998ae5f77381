/** Live countdown to a run's timeout, with a bar that fills as the deadline nears. */
import type { RunView } from '@treewarden/protocol';
import { useNow } from '../hooks/use-now';
import { formatCountdown } from '../model/format';

/** Below this share of the timeout left, the countdown turns to a warning colour. */
const WARN_FRACTION = 0.2;

export function Countdown({
  run,
}: {
  run: Pick<RunView, 'deadlineAtMs' | 'startedAtMs' | 'phase' | 'timeoutSeconds'>;
}) {
  const nowMs = useNow();
  if (run.phase === 'ended') return null;
  if (run.deadlineAtMs === null)
    return (
      <span
        className="countdown countdown-unknown"
        title="No record of this run says its timeout (it was started by an older version)"
        data-testid="countdown"
      >
        <span className="countdown-text">timeout unknown</span>
      </span>
    );
  const totalMs = Math.max(1, run.deadlineAtMs - run.startedAtMs);
  const leftMs = run.deadlineAtMs - nowMs;
  const fraction = Math.min(1, Math.max(0, leftMs / totalMs));
  const tone = leftMs <= 0 ? 'over' : fraction < WARN_FRACTION ? 'warn' : 'ok';
  return (
    <span className={`countdown countdown-${tone}`} title={`Timeout ${run.timeoutSeconds} s`} data-testid="countdown">
      <span className="countdown-bar">
        <span className="countdown-fill" style={{ width: `${(1 - fraction) * 100}%` }} />
      </span>
      <span className="countdown-text">{leftMs <= 0 ? 'timing out…' : `times out in ${formatCountdown(leftMs)}`}</span>
    </span>
  );
}
