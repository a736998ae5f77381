/**
 * Which live processes belong to given runs, and why, for the guardian when its lease ends and
 * for the orphan scan: the membership model's one-shot query (membership/query.ts) under the
 * names the orphan code has always used.
 */
export type { DeadSession, RunAnchor } from '../membership/evidence.js';
export {
  type CookieReader,
  type MemberMatch,
  type MembershipQuery,
  memberRoots,
  queryMembers as findRunMembers,
} from '../membership/query.js';
