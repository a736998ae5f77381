/**
 * What agent CLIs print when a run fails for a reason other than a plain error. Collected from
 * the messages of Claude Code, Codex CLI, Gemini CLI, Aider/litellm and the Anthropic/OpenAI/Google
 * APIs they wrap. Checked in order: the first category with a match wins, because a worker that
 * hit its usage limit often also prints a generic "error" line, and a 401 is not a cancellation.
 */
import type { Classification } from '@treewarden/protocol/vocabulary';

export type FailureClassification = Extract<Classification, 'usage_limit' | 'auth_failure' | 'cancelled'>;

export interface FailurePattern {
  readonly classification: FailureClassification;
  readonly pattern: RegExp;
}

const USAGE_LIMIT: readonly RegExp[] = [
  /usage limit (?:reached|exceeded|hit)/i, // Claude Code: "Claude AI usage limit reached|…"
  /hit your usage limit/i, // Codex: "You've hit your usage limit."
  /\b\d+-hour limit reached/i, // Claude Code: "5-hour limit reached"
  /(?:weekly|daily|monthly|session) limit (?:reached|exceeded)/i,
  /rate[ _-]?limit(?![ _-]*(?:headers?|remaining|reset))/i, // "rate limit", "rate_limit_error", "RateLimitError"
  /too many requests/i, // HTTP 429 reason phrase
  /(?:status|code|http|error)[ :=]*429\b/i,
  /\b429\b[ :-]*too many/i,
  /quota (?:exceeded|exhausted)|exceeded (?:your|the) (?:current )?quota|insufficient_quota/i, // OpenAI, Gemini
  /resource[ _]exhausted/i, // Google: RESOURCE_EXHAUSTED
  /credit balance is too low|out of credits|billing (?:hard )?limit/i,
];

const AUTH_FAILURE: readonly RegExp[] = [
  /invalid[ _-]?(?:api[ _-]?key|x-api-key|token|credentials)/i, // "Invalid API key · Please run /login", invalid_api_key
  /incorrect api key/i, // OpenAI
  /(?:api[ _-]?key|token) (?:is )?(?:missing|not (?:set|found|valid)|expired|revoked)/i,
  /oauth token (?:has )?expired|token has expired|session (?:has )?expired/i,
  /not (?:logged|signed) in|please (?:run )?\/?log ?in|login required|please authenticate/i,
  /authentication[ _](?:error|failed|failure|required)|AuthenticationError|unauthenticated/i,
  /\bunauthori[sz]ed\b/i,
  /(?:status|code|http|error)[ :=]*401\b|\b401\b[ :-]*unauthori[sz]ed/i,
  /permission[ _]denied.*(?:api|token|key)|forbidden.*(?:api key|token)/i,
];

const CANCELLED: readonly RegExp[] = [
  /cancel(?:l)?ed by (?:the )?user|user cancel(?:l)?ed/i,
  /(?:operation|request|run|task|execution) (?:was )?(?:cancel(?:l)?ed|aborted)/i,
  /aborted by (?:the )?user|interrupted by (?:the )?user/i,
  /\bKeyboardInterrupt\b/, // Python agents on SIGINT
  /\bAbortError\b/, // Node fetch/AbortController
];

function tag(classification: FailureClassification, patterns: readonly RegExp[]): FailurePattern[] {
  return patterns.map((pattern) => ({ classification, pattern }));
}

/** In priority order. */
export const FAILURE_PATTERNS: readonly FailurePattern[] = [
  ...tag('usage_limit', USAGE_LIMIT),
  ...tag('auth_failure', AUTH_FAILURE),
  ...tag('cancelled', CANCELLED),
];
