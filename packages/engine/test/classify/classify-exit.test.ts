import { describe, expect, it } from 'vitest';
import { classifyExit, matchFailure } from '../../src/classify/index.js';

const failed = (stderr: string, stdout = '') => classifyExit({ exitCode: 1, signal: null, stderr, stdout });

describe('classifyExit', () => {
  it('keeps exit 0 ok whatever the worker printed', () => {
    expect(classifyExit({ exitCode: 0, signal: null, stderr: 'rate limit reached' })).toBe('ok');
  });

  it.each([
    'Claude AI usage limit reached|1767225600',
    "You've hit your usage limit. Upgrade to Pro or try again later.",
    '5-hour limit reached ∙ resets 3pm',
    'stream error: exceeded retry limit, last status: 429 Too Many Requests',
    'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}',
    'litellm.RateLimitError: AnthropicException',
    'You exceeded your current quota, please check your plan and billing details.',
    'Quota exceeded for quota metric; status: RESOURCE_EXHAUSTED',
    'Credit balance is too low',
  ])('usage_limit: %s', (line) => {
    expect(failed(`starting\n${line}\n`)).toBe('usage_limit');
  });

  it.each([
    'Invalid API key · Please run /login',
    'Error: 401 Unauthorized',
    'API Error: 401 {"type":"error","error":{"type":"authentication_error"}}',
    'Incorrect API key provided: sk-abc. You can find your API key at ...',
    'Not logged in. Run `codex login`.',
    'OAuth token has expired. Please obtain a new token or refresh your existing token.',
    'litellm.AuthenticationError: invalid x-api-key',
  ])('auth_failure: %s', (line) => {
    expect(failed(line)).toBe('auth_failure');
  });

  it.each(['Cancelled by user', 'Operation cancelled', 'Request was aborted.', 'Traceback ...\nKeyboardInterrupt'])(
    'cancelled: %s',
    (line) => {
      expect(failed(line)).toBe('cancelled');
    },
  );

  it('treats death by SIGINT and exit 130 as cancelled', () => {
    expect(classifyExit({ exitCode: null, signal: 'SIGINT', stderr: '' })).toBe('cancelled');
    expect(classifyExit({ exitCode: 130, signal: null, stderr: '' })).toBe('cancelled');
  });

  it('is a generic error otherwise, including bare numbers that merely contain 401/429', () => {
    expect(failed('TypeError: x is undefined')).toBe('error');
    expect(failed('processed 4010 files, 1429 skipped')).toBe('error');
    expect(classifyExit({ exitCode: null, signal: 'SIGKILL', stderr: '' })).toBe('error');
  });

  it('prefers usage_limit over auth_failure and reads stdout when stderr says nothing', () => {
    expect(failed('401 Unauthorized\nusage limit reached')).toBe('usage_limit');
    expect(failed('', '{"result":"Claude AI usage limit reached|1767225600"}')).toBe('usage_limit');
    expect(matchFailure('')).toBeNull();
  });
});
