/** Applies the theme preference as data-theme on <html>; "system" follows prefers-color-scheme. */
import { useEffect } from 'react';
import { useAppStore } from '../store/store';

export function useThemeAttribute(): void {
  const theme = useAppStore((state) => state.theme);
  useEffect(() => {
    const media = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
    const apply = () => {
      const resolved = theme === 'system' ? (media?.matches ? 'dark' : 'light') : theme;
      document.documentElement.dataset.theme = resolved;
    };
    apply();
    if (theme !== 'system' || !media) return;
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
}
