/**
 * The serve token leaves the address bar and the history entry as soon as the page has it, and a
 * reload of the same tab finds it again in sessionStorage (jsdom's real location, history and storage).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pageTokenSources, TOKEN_STORAGE_KEY, takeToken } from '../src/transport/token';

function visit(path: string): void {
  window.history.replaceState({ page: 'state' }, '', path);
}

afterEach(() => {
  window.sessionStorage.clear();
  visit('/');
});

describe('takeToken', () => {
  it('takes the token from the launch page fragment and removes it from the URL', () => {
    visit('/#token=from-fragment');
    expect(takeToken(pageTokenSources())).toBe('from-fragment');
    expect(window.location.href).not.toContain('from-fragment');
    expect(window.location.hash).toBe('');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('from-fragment');
  });

  it('takes the token from the printed URL, keeps every other parameter and the history state', () => {
    visit('/?view=system&token=printed%2Btoken#section=2');
    expect(takeToken(pageTokenSources())).toBe('printed+token');
    expect(window.location.search).toBe('?view=system');
    expect(window.location.hash).toBe('#section=2');
    expect(window.history.state).toEqual({ page: 'state' });
  });

  it('finds the token again after a reload, whose URL no longer carries it', () => {
    visit('/?token=first');
    takeToken(pageTokenSources());
    visit('/');
    expect(takeToken(pageTokenSources())).toBe('first');
  });

  it('lets a token in the URL replace the stored one (a newer serve)', () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'old');
    visit('/#token=new');
    expect(takeToken(pageTokenSources())).toBe('new');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('new');
  });

  it('gives null when neither the URL nor the tab has a token', () => {
    visit('/');
    expect(takeToken(pageTokenSources())).toBeNull();
  });

  it('still strips the URL when storage refuses to store', () => {
    visit('/?token=unstorable');
    const refusing = {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(takeToken({ location: window.location, history: window.history, storage: refusing })).toBe('unstorable');
    expect(window.location.href).not.toContain('unstorable');
  });
});
