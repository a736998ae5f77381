/** The one membership model: kinds of evidence, the shared exclusions, the tracker and the query. */
export {
  type AdmissionScope,
  admitBy,
  type DeadSession,
  type DescribeContext,
  describeEvidence,
  EVIDENCE_KINDS,
  type Evidence,
  type EvidenceKind,
  type EvidenceOf,
  type EvidenceRule,
  type EvidenceRules,
  type RecordedCgroup,
  type RunAnchor,
} from './evidence.js';
export { callerLine, releasedTrees } from './exclusions.js';
export { type CookieReader, type MemberMatch, type MembershipQuery, memberRoots, queryMembers } from './query.js';
export { describeStart, type StartClock, systemStartClock } from './start-clock.js';
export {
  admitDescendants,
  createMembership as createMemberTracker,
  type Member as TrackedMember,
  type Membership as MemberTracker,
  ownsEntry,
  pruneGroups,
  refreshMembers,
  releaseMembers,
  seedRoot,
} from './tracker.js';
