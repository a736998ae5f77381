export { classifyExit, type ExitFacts, matchFailure } from './classify-exit.js';
export { FAILURE_PATTERNS, type FailureClassification, type FailurePattern } from './patterns.js';
