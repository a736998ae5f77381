export { killTree } from './kill-tree.js';
export {
  FREEZE_ROUNDS,
  GRACE_POLL_MS,
  killOwnedTree,
  type OwnerKill,
  VERIFY_POLL_MS,
  VERIFY_TIMEOUT_MS,
} from './owner-kill.js';
export { type KillPreview, previewKill } from './preview.js';
export * from './types.js';
