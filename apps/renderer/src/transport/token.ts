/**
 * Where the page finds the serve token, and how it keeps it out of the address bar. The token
 * arrives in the fragment (from serve's launch page) or the query (the URL serve printed); the
 * page moves it to this tab's sessionStorage and rewrites the history entry without it, so it is
 * neither shown, nor bookmarked, nor in the history, while a reload of the tab still reconnects.
 */
import { TOKEN_QUERY_PARAM } from '@treewarden/protocol';

export const TOKEN_STORAGE_KEY = 'treewarden.serveToken';

export interface TokenSources {
  readonly location: Pick<Location, 'pathname' | 'search' | 'hash'>;
  readonly history: Pick<History, 'replaceState' | 'state'>;
  /** null where storage is disabled: the token then lasts until the page is reloaded. */
  readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null;
}

function paramsOf(part: string, prefix: '?' | '#'): URLSearchParams {
  return new URLSearchParams(part.startsWith(prefix) ? part.slice(1) : part);
}

/** `params` as `prefix…`, or '' when nothing is left. */
function serialise(params: URLSearchParams, prefix: '?' | '#'): string {
  const text = params.toString();
  return text === '' ? '' : `${prefix}${text}`;
}

function readStored(storage: TokenSources['storage']): string | null {
  try {
    return storage?.getItem(TOKEN_STORAGE_KEY) || null;
  } catch {
    return null;
  }
}

function store(storage: TokenSources['storage'], token: string): void {
  try {
    storage?.setItem(TOKEN_STORAGE_KEY, token);
  } catch {
    // Storage full or disabled: this load still has the token; a reload will ask for the URL.
  }
}

/** The token for this tab; a token in the URL wins (a newer serve) and is removed from it. */
export function takeToken({ location, history, storage }: TokenSources): string | null {
  const query = paramsOf(location.search, '?');
  const fragment = paramsOf(location.hash, '#');
  const fromUrl = fragment.get(TOKEN_QUERY_PARAM) || query.get(TOKEN_QUERY_PARAM);
  if (!fromUrl) return readStored(storage);
  store(storage, fromUrl);
  query.delete(TOKEN_QUERY_PARAM);
  fragment.delete(TOKEN_QUERY_PARAM);
  history.replaceState(history.state, '', `${location.pathname}${serialise(query, '?')}${serialise(fragment, '#')}`);
  return fromUrl;
}

/** The page's own sources; sessionStorage access itself throws in some sandboxed frames. */
export function pageTokenSources(): TokenSources {
  let storage: Storage | null = null;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = null;
  }
  return { location: window.location, history: window.history, storage };
}
