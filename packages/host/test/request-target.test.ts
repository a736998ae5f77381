/**
 * The one target parser the gate, the router and the file server share: every spelling of a path
 * must come out as the same normalised path or as a refusal, and nothing may throw.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TARGET_LENGTH, parseRequestTarget, singleQueryValue } from '../src/serve/request-target.js';

function pathOf(raw: string | undefined): string | null {
  const parsed = parseRequestTarget(raw);
  return parsed.ok ? parsed.target.path : null;
}

describe('parseRequestTarget', () => {
  it.each([
    ['/', '/'],
    ['/index.html', '/index.html'],
    ['/%69ndex.html', '/index.html'],
    ['/%69%6E%64%65%78%2E%68%74%6D%6C', '/index.html'],
    ['//index.html', '/index.html'],
    ['///index.html?x', '/index.html'],
    ['/./index.html', '/index.html'],
    ['/assets/../index.html', '/index.html'],
    ['/assets/..%2findex.html', '/index.html'],
    ['/assets/%2e%2e/index.html', '/index.html'],
    ['/assets%2f..%2findex.html', '/index.html'],
    ['/assets/app.js/', '/assets/app.js'],
    ['/index.html;jsessionid=1', '/index.html;jsessionid=1'],
    ['/%252e%252e/x', '/%2e%2e/x'],
    ['//x:99999/', '/x:99999'],
    ['/ws?token=a', '/ws'],
    ['/caf%C3%A9', '/café'],
  ])('reads %j as %j', (raw, path) => {
    expect(pathOf(raw)).toBe(path);
  });

  it.each([
    ['', 'empty'],
    [undefined, 'empty'],
    ['*', 'origin-form'],
    ['http://127.0.0.1/', 'origin-form'],
    ['http://[', 'origin-form'],
    ['127.0.0.1:80', 'origin-form'],
    ['index.html', 'origin-form'],
    ['/..', 'above the root'],
    ['/../etc/passwd', 'above the root'],
    ['/%2e%2e/%2e%2e/etc/passwd', 'above the root'],
    ['/assets/../../x', 'above the root'],
    ['/%zz', 'percent-encoding'],
    ['/%', 'percent-encoding'],
    ['/%C3', 'percent-encoding'],
    ['/%FF%FE', 'percent-encoding'],
    ['/%00', 'control characters'],
    ['/a%0d%0aSet-Cookie:x', 'control characters'],
    ['/\\index.html', 'control characters'],
    ['/%5c..%5c..%5cx', 'control characters'],
    ['/%23', 'control characters'],
    [`/${'a'.repeat(MAX_TARGET_LENGTH)}`, 'longer than'],
  ])('refuses %j: %s', (raw, reason) => {
    const parsed = parseRequestTarget(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('never throws on arbitrary strings, including invalid UTF-16 and latin1 bytes', () => {
    const samples = ['/\uD800', '/\uDFFF?token=\uD800', '/\u00ff\u00fe', '/?%zz=%', '/?token=%E0%A4%A', '/\u2028'];
    for (const sample of samples) expect(() => parseRequestTarget(sample)).not.toThrow();
  });

  it('keeps the query apart from the path and reads a parameter only when it is given once', () => {
    const parsed = parseRequestTarget('/%69ndex.html?token=a%2Bb&x=1');
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(singleQueryValue(parsed.target.query, 'token')).toBe('a+b');
    const twice = parseRequestTarget('/?token=a&token=a');
    if (!twice.ok) throw new Error(twice.reason);
    expect(singleQueryValue(twice.target.query, 'token')).toBeNull();
    expect(singleQueryValue(twice.target.query, 'missing')).toBeNull();
  });
});
