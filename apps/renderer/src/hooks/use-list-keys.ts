/**
 * Keyboard navigation shared by the tree lists: ArrowUp/ArrowDown (and Home/End) move the
 * highlighted row, Enter selects it, k or Delete asks to kill it (always behind a confirmation),
 * ArrowLeft/ArrowRight collapse and expand.
 */
import type { KeyboardEvent } from 'react';

export interface ListKeyHandlers {
  keys: readonly string[];
  activeKey: string | null;
  setActive(key: string): void;
  onEnter?(key: string): void;
  onKill?(key: string): void;
  onCollapse?(key: string, collapse: boolean): void;
}

export function handleListKey(event: KeyboardEvent, handlers: ListKeyHandlers): void {
  const { keys, activeKey } = handlers;
  if (keys.length === 0) return;
  const index = activeKey === null ? -1 : keys.indexOf(activeKey);
  const move = (to: number) => {
    const next = keys[Math.max(0, Math.min(keys.length - 1, to))];
    if (next !== undefined) handlers.setActive(next);
  };
  switch (event.key) {
    case 'ArrowDown':
      move(index + 1);
      break;
    case 'ArrowUp':
      move(index < 0 ? 0 : index - 1);
      break;
    case 'Home':
      move(0);
      break;
    case 'End':
      move(keys.length - 1);
      break;
    case 'Enter':
      if (activeKey !== null) handlers.onEnter?.(activeKey);
      break;
    case 'k':
    case 'Delete':
      if (activeKey !== null && handlers.onKill) handlers.onKill(activeKey);
      else return;
      break;
    case 'ArrowLeft':
    case 'ArrowRight':
      if (activeKey === null || !handlers.onCollapse) return;
      handlers.onCollapse(activeKey, event.key === 'ArrowLeft');
      break;
    default:
      return;
  }
  event.preventDefault();
}
