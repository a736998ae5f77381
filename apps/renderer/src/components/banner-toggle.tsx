/**
 * Banners fold to one line in a small window (the styles decide when): a leak banner and a pile-up
 * banner together must leave the view room. "Details" unfolds the full text; the buttons stay.
 */
import { type ReactNode, useState } from 'react';

export function useBannerFold(): { foldClass: string; toggle: ReactNode } {
  const [expanded, setExpanded] = useState(false);
  return {
    foldClass: ` banner-foldable${expanded ? ' expanded' : ''}`,
    toggle: (
      <button
        type="button"
        className="btn btn-sm banner-toggle"
        aria-expanded={expanded}
        onClick={() => setExpanded(!expanded)}
        title={expanded ? 'Fold this banner to one line' : 'Show every process this banner names'}
      >
        {expanded ? 'Less' : 'Details'}
      </button>
    ),
  };
}
