/** One store built from typed slices; the transport calls its setters from outside React. */
import { create } from 'zustand';
import {
  createActionsSlice,
  createCatalogSlice,
  createConnectionSlice,
  createHistorySlice,
  createPrefsSlice,
  createSelectionSlice,
  createSnapshotSlice,
  createSystemSlice,
} from './slices';
import type { AppState } from './types';

export function createAppStore() {
  return create<AppState>()((...a) => ({
    ...createSnapshotSlice(...a),
    ...createSystemSlice(...a),
    ...createHistorySlice(...a),
    ...createSelectionSlice(...a),
    ...createActionsSlice(...a),
    ...createPrefsSlice(...a),
    ...createConnectionSlice(...a),
    ...createCatalogSlice(...a),
  }));
}

export const useAppStore = createAppStore();
export type AppStore = typeof useAppStore;
