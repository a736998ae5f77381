/**
 * One run's output as the agent reads it: stdout and stderr interleaved in arrival order (already
 * decoded by the run's supervisor, invalid UTF-8 replaced), bounded to the last OUTPUT_LOG_CHARS.
 * Offsets count characters from the run's start and never go back, so `since` resumes a read
 * where the last one stopped even after older text was dropped.
 */

/** Output kept per run; older text is dropped (and reported as skipped to a reader behind it). */
export const OUTPUT_LOG_CHARS = 1024 * 1024;

export interface OutputRead {
  readonly text: string;
  /** Offset of the first character returned. */
  readonly fromOffset: number;
  /** Pass this as `since` to get only what comes next. */
  readonly nextOffset: number;
  /** Characters between the requested start and what is returned that are no longer kept or were cut by `tail`. */
  readonly skippedChars: number;
}

export interface OutputLog {
  append(text: string): void;
  /** The last `tail` characters after `since` (default: from the oldest kept). */
  read(options: { readonly tail: number; readonly since?: number }): OutputRead;
  /** Characters appended so far (the offset the next text starts at). */
  readonly totalChars: number;
  /** Calls `listener` with each appended text; returns the unsubscribe function. */
  subscribe(listener: (text: string) => void): () => void;
}

export function createOutputLog(limitChars: number = OUTPUT_LOG_CHARS): OutputLog {
  let kept = '';
  let droppedChars = 0;
  const listeners = new Set<(text: string) => void>();

  return {
    append(text) {
      kept += text;
      // Trim at twice the bound so the amortised cost stays linear in what was written.
      if (kept.length > 2 * limitChars) {
        let cut = kept.length - limitChars;
        // Never keep the low half of a surrogate pair without its high half.
        const first = kept.charCodeAt(cut);
        if (first >= 0xdc00 && first <= 0xdfff) cut += 1;
        kept = kept.slice(cut);
        droppedChars += cut;
      }
      for (const listener of listeners) listener(text);
    },
    read({ tail, since }) {
      const total = droppedChars + kept.length;
      const start = Math.min(Math.max(since ?? 0, 0), total);
      const available = Math.max(start, droppedChars);
      const from = Math.max(available, total - tail);
      return {
        text: kept.slice(from - droppedChars),
        fromOffset: from,
        nextOffset: total,
        skippedChars: from - start,
      };
    },
    get totalChars() {
      return droppedChars + kept.length;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
