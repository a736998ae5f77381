/** Which rows of a tree list have their subtree hidden; shared by run trees and the system view. */
import { useCallback, useState } from 'react';

/** `toggle(key)` flips a row; `toggle(key, true/false)` sets it (ArrowLeft collapses, ArrowRight expands). */
export type ToggleCollapsed = (key: string, collapse?: boolean) => void;

export function useCollapsed(): [ReadonlySet<string>, ToggleCollapsed] {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = useCallback<ToggleCollapsed>((key, collapse) => {
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (collapse ?? !next.has(key)) next.add(key);
      else next.delete(key);
      return next;
    });
  }, []);
  return [collapsed, toggle];
}
