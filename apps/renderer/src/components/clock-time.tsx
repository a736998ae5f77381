/**
 * Every clock time the app shows: short on screen ("15:27:54", or "today 15:27:54" where the day
 * may differ), the whole date, time and zone in its tooltip, machine-readable in `dateTime`.
 */
import { formatClock, formatFullDateTime, formatWallClock } from '../model/format';

export function ClockTime({ atMs, withDay = false, testId }: { atMs: number; withDay?: boolean; testId?: string }) {
  return (
    <time dateTime={new Date(atMs).toISOString()} title={formatFullDateTime(atMs)} data-testid={testId}>
      {withDay ? formatWallClock(atMs) : formatClock(atMs)}
    </time>
  );
}
