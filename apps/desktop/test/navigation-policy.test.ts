/**
 * The page may only ever be our renderer file (compared exactly, query and hash aside), and a
 * link leaves the app only as https to an allowlisted host: the class of "starts with" and
 * "any https" mistakes, one case each.
 */
import { describe, expect, it } from 'vitest';
import { EXTERNAL_LINK_HOSTS, externalLinkToOpen, isRendererUrl } from '../src/node/navigation-policy.js';

const RENDERER = 'file:///opt/Treewarden/resources/renderer/index.html';

describe('isRendererUrl', () => {
  it('accepts the renderer file with any query or hash', () => {
    for (const url of [RENDERER, `${RENDERER}?view=system`, `${RENDERER}#/runs`, `${RENDERER}?a=1#b`]) {
      expect(isRendererUrl(url, RENDERER), url).toBe(true);
    }
  });

  it('refuses every URL that only starts with it, or is not it', () => {
    for (const url of [
      `${RENDERER}.evil`,
      `${RENDERER}/`,
      `${RENDERER}/../../../../tmp/evil.html`,
      'file:///opt/Treewarden/resources/renderer/%69ndex.html',
      'file:///opt/Treewarden/resources/renderer/',
      'file:///tmp/index.html',
      'file://evil.example/opt/Treewarden/resources/renderer/index.html',
      'https://example.com/opt/Treewarden/resources/renderer/index.html',
      'javascript:alert(1)',
      'not a url',
      null,
    ]) {
      expect(isRendererUrl(url, RENDERER), String(url)).toBe(false);
    }
  });
});

describe('externalLinkToOpen', () => {
  it('opens nothing with the shipped allowlist (the renderer links nowhere)', () => {
    expect(EXTERNAL_LINK_HOSTS).toEqual([]);
    expect(externalLinkToOpen('https://example.com/docs')).toBeNull();
  });

  it('opens only https on an allowlisted host, exactly', () => {
    const hosts = ['docs.treewarden.example'];
    expect(externalLinkToOpen('https://docs.treewarden.example/guide#kill', hosts)).toBe(
      'https://docs.treewarden.example/guide#kill',
    );
    for (const url of [
      'http://docs.treewarden.example/',
      'https://docs.treewarden.example.evil.com/',
      'https://evil.com/?docs.treewarden.example',
      'https://user:pass@docs.treewarden.example/',
      'https://docs.treewarden.example:8443/',
      'file:///etc/passwd',
      'smb://docs.treewarden.example/share',
      'not a url',
    ]) {
      expect(externalLinkToOpen(url, hosts), url).toBeNull();
    }
  });
});
