export { type EndReport, endMembers, type KillTreeFn } from '../ending/end-members.js';
export { findRunMembers } from '../membership/run-members.js';
export { type CleanedGroup, type CleanOptions, cleanOrphans, survivorsOf } from './clean-orphans.js';
export {
  type FindOrphansOptions,
  findOrphans,
  type OrphanGroup,
  type OrphanScan,
  type UnendedRun,
} from './find-orphans.js';
export { buildRunIndex, type KnownRun, type RunIndex, UNRECORDED_RUN_DIR_MIN_AGE_MS } from './run-index.js';
export { END_MARKER_FILE, type SettledRun, type SettleOptions, settleEndedRuns } from './settle-ended.js';
