/** The shared 1 Hz clock (store/clock) for every countdown and age column, as a React hook. */
import { useSyncExternalStore } from 'react';
import { clockNow, subscribeClock } from '../store/clock';

export function useNow(): number {
  return useSyncExternalStore(subscribeClock, clockNow);
}
