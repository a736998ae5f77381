/**
 * Which live processes belong to given runs, and why, for the guardian when its lease ends and
 * for the orphan scan: the membership model's one-shot query (query.ts) under the names the
 * orphan code, the guardian's sweep and agent clean-up use.
 */
export type { DeadSession, RunAnchor } from './evidence.js';
export {
  type CookieReader,
  type MemberMatch,
  type MembershipQuery,
  memberRoots,
  queryMembers as findRunMembers,
} from './query.js';
