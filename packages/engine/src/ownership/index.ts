export {
  findCookieCarriers,
  MAX_ENVIRON_BYTES,
  type RunCookies,
  readEnvironBounded,
  readRunCookies,
} from '../membership/cookie.js';
export { GroupEpermError, IdentityUncertainError, NoTableError, ProcessEpermError } from './errors.js';
export { readLeanProcTable } from './proc-reader.js';
export type { GracefulRoots, SignalRequest, SignalTarget } from './signal-plan.js';
export {
  type CreateTreeOwnerOptions,
  createTreeOwner,
  type RevalidatingTreeOwner,
  type SignalReport,
} from './tree-owner.js';
export type { TreeOwner, TreeOwnerOptions } from './types.js';
