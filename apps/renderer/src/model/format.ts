/** Display helpers: short, fixed-width-friendly strings for a dense process table. */

const KIB = 1024;
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= KIB && unit < UNITS.length - 1) {
    value /= KIB;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

export function formatPercent(percent: number): string {
  return percent >= 100 ? percent.toFixed(0) : percent.toFixed(1);
}

/**
 * The one duration format of the app: "0.3 s", "12 s", "4 min 05 s", "2 h 03 min", "2 d 04 h".
 * Under ten seconds keeps a tenth so a quick step never reads as "0 s".
 *
 * `precise` is the same format for the one place whose steps are milliseconds apart, the kill
 * timeline: under a second in whole milliseconds ("12 ms": SIGTERM, the freeze and SIGKILL
 * often fall inside one tenth, and a tenth would print them all as "0.0 s"), under ten seconds
 * in hundredths ("2.01 s": the grace period's end against the SIGKILL after it), and from ten
 * seconds on exactly what every other duration shows.
 */
export function formatDuration(ms: number, { precise = false }: { readonly precise?: boolean } = {}): string {
  const safe = Math.max(0, ms);
  if (precise && safe < 1000) return `${Math.round(safe)} ms`;
  if (precise && safe < 10_000) return `${(Math.floor(safe / 10) / 100).toFixed(2)} s`;
  if (safe === 0) return '0 s';
  if (safe < 10_000) return `${(Math.floor(safe / 100) / 10).toFixed(safe < 1000 || safe % 1000 >= 100 ? 1 : 0)} s`;
  const total = Math.floor(safe / 1000);
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return `${days} d ${pad(hours)} h`;
  if (hours > 0) return `${hours} h ${pad(minutes)} min`;
  if (minutes > 0) return `${minutes} min ${pad(seconds)} s`;
  return `${seconds} s`;
}

/**
 * Time left before a deadline, in the one duration format: "1 min 05 s", "9 s", "2 h 03 min".
 * Rounded up to the whole second, so the countdown changes once a second as it ticks (a tenth
 * would flicker between ticks) and never says "0 s" while time is left.
 */
export function formatCountdown(ms: number): string {
  return formatDuration(Math.max(0, Math.ceil(ms / 1000)) * 1000);
}

export function formatClock(epochMs: number): string {
  const date = new Date(epochMs);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A moment a person can place: "today 15:27:54", else "2026-11-29 15:27:54" (local time). */
export function formatWallClock(epochMs: number, nowMs: number = Date.now()): string {
  const date = new Date(epochMs);
  const now = new Date(nowMs);
  const sameDay =
    date.getFullYear() === now.getFullYear() && date.getMonth() === now.getMonth() && date.getDate() === now.getDate();
  if (sameDay) return `today ${formatClock(epochMs)}`;
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day} ${formatClock(epochMs)}`;
}

/**
 * The whole moment, for a clock time's tooltip: "2026-12-06 15:27:54 UTC+01:00" (local time, its
 * offset said), so a bare "15:27:54" can always be placed.
 */
export function formatFullDateTime(epochMs: number): string {
  const date = new Date(epochMs);
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${day} ${formatClock(epochMs)} ${zone}`;
}

/** Offset inside a kill timeline, from its first step: "+0 ms", "+2.01 s", "+1 min 05 s". */
export function formatOffset(ms: number): string {
  return `+${formatDuration(ms, { precise: true })}`;
}

function pad(value: number): string {
  return value.toString().padStart(2, '0');
}

/**
 * A command line made readable in a narrow column: absolute paths become their last segment
 * (`/work/x/fixtures/run.mjs` → `run.mjs`). The full line stays in the tooltip and details.
 */
export function shortenCommandLine(commandLine: string): string {
  return commandLine
    .split(' ')
    .map((token) =>
      token.startsWith('/') && token.length > 1 && !token.endsWith('/')
        ? token.slice(token.lastIndexOf('/') + 1)
        : token,
    )
    .join(' ');
}

/** The arguments part of a command line (argv[0] dropped), shortened for display. */
export function displayArgs(commandLine: string): string {
  const space = commandLine.indexOf(' ');
  return space < 0 ? '' : shortenCommandLine(commandLine.slice(space + 1));
}
