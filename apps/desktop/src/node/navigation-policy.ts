/**
 * Where the app's web contents may go. The page may only ever be our renderer file: a URL is ours
 * when it is a file: URL whose path equals the renderer's exactly (the query and hash may vary) —
 * not one that merely starts with it (`index.html.evil`, `index.html/../x`). Links open in the
 * user's browser only for https URLs on an allowlisted host; the renderer links nowhere today,
 * so the list is empty and nothing is opened.
 */

/** Hosts whose https links may open in the user's browser (exact match, default port). */
export const EXTERNAL_LINK_HOSTS: readonly string[] = [];

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

export function isRendererUrl(url: string | null, rendererFileUrl: string): boolean {
  const candidate = url === null ? null : parse(url);
  const renderer = parse(rendererFileUrl);
  if (candidate === null || renderer === null) return false;
  return (
    candidate.protocol === 'file:' &&
    renderer.protocol === 'file:' &&
    candidate.host === renderer.host &&
    candidate.pathname === renderer.pathname
  );
}

/** The URL to hand to shell.openExternal, or null when it must not leave the app at all. */
export function externalLinkToOpen(url: string, allowedHosts: readonly string[] = EXTERNAL_LINK_HOSTS): string | null {
  const link = parse(url);
  if (link === null || link.protocol !== 'https:') return null;
  if (link.username !== '' || link.password !== '' || link.port !== '') return null;
  return allowedHosts.includes(link.hostname) ? link.href : null;
}
