/** The browser tab's title carries the leak count, so a leak is seen from another tab too. */
import { useEffect } from 'react';
import { useAppStore } from '../store/store';

const BASE_TITLE = 'Treewarden';

export function leakTitle(leaked: number | null): string {
  return leaked !== null && leaked > 0 ? `(${leaked} leaked) ${BASE_TITLE}` : BASE_TITLE;
}

export function useLeakTitle(): void {
  const leaked = useAppStore((state) => state.snapshot?.counts.leaked ?? null);
  useEffect(() => {
    document.title = leakTitle(leaked);
  }, [leaked]);
}
