export { type Containment, createContainment } from './containment.js';
export type { GuardianLoss } from './guardian-loss.js';
export { GUARDIAN_ENTRY, GUARDIAN_READY_TIMEOUT_MS, guardianLogPath } from './guardian-process.js';
export { type EndSummary, RUNS_END_WAIT_MS, SWEEP_ROUNDS } from './guardian-sweep.js';
export type { LeaseRun } from './lease-run.js';
export {
  GUARDIAN_EXIT_AFTER_DISCONNECT_MS,
  generateId,
  type Lease,
  type OpenLeaseOptions,
  openLease,
  RELEASE_WAIT_MS,
  type ReleaseResult,
} from './open-lease.js';
export {
  checkLeaseFile,
  classifyLease,
  createLeaseFileCache,
  type IdentityProbe,
  isIdentityAlive,
  type LeaseFile,
  type LeaseFileCache,
  type LeaseFileProblem,
  type LeaseFileRead,
  type LeaseRegistryRead,
  type LeaseRunInfo,
  type LeaseState,
  type LeaseStatus,
  leaseFilePath,
  listLeases,
  MAX_LEASE_FILE_BYTES,
  readLeaseFile,
  readLeaseRegistry,
  writeLeaseFile,
} from './registry.js';
