/** A run id that fits any width: truncated on screen, whole in the tooltip, one click to copy. */
import { type MouseEvent, useEffect, useState } from 'react';

/** How long the copy button says "Copied" before it goes back to its icon. */
const COPIED_FEEDBACK_MS = 1500;

/** Two overlapping sheets, drawn so no font has to carry the glyph. */
function CopyIcon() {
  return (
    <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <rect x="5" y="5" width="8.5" height="8.5" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="M3 10.5V3.5A1 1 0 0 1 4 2.5h6.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
    </svg>
  );
}

export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = (event: MouseEvent) => {
    // Inside a clickable row (History): copying must not also open the run.
    event.stopPropagation();
    // The clipboard API needs a secure context (loopback and the app are); say so when it fails.
    navigator.clipboard?.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    ) ?? setState('failed');
  };
  const label =
    state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text instead' : `Copy ${what}`;
  return (
    <button
      type="button"
      className={`btn btn-xs btn-ghost copy copy-${state}`}
      onClick={copy}
      title={label}
      aria-label={label}
    >
      {state === 'copied' ? '✓' : <CopyIcon />}
    </button>
  );
}

export function RunId({ id }: { id: string }) {
  return (
    <span className="run-id" title={id} data-testid="run-id">
      {id}
    </span>
  );
}
