/** Static files of the built renderer, resolved strictly inside its directory. */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RENDERER_DIR_ENV = 'TREEWARDEN_RENDERER_DIR';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** `$TREEWARDEN_RENDERER_DIR`, else apps/renderer/dist found through the workspace package. */
export function resolveRendererDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[RENDERER_DIR_ENV];
  if (explicit !== undefined && explicit !== '') return explicit;
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve('@treewarden/renderer/package.json')), 'dist');
  } catch {
    return fileURLToPath(new URL('../../../../apps/renderer/dist', import.meta.url));
  }
}

export interface StaticFile {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The page route owns index.html (it is gated by the token check); the file route never serves it. */
export const INDEX_FILE = 'index.html';

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The file at `segments` (a path already decoded and normalised by parseRequestTarget), or null.
 * Dotfiles and index.html are never served from here, and neither a lexical `..` nor a symlink
 * may lead outside `root`.
 */
export function readStaticFile(root: string, segments: readonly string[]): StaticFile | null {
  const name = segments.at(-1);
  if (name === undefined || name.toLowerCase() === INDEX_FILE) return null;
  if (segments.some((segment) => segment.startsWith('.'))) return null;
  const base = resolve(root);
  const path = join(base, ...segments);
  try {
    if (!isInside(path, base) || !isInside(realpathSync(path), realpathSync(base))) return null;
    if (!statSync(path).isFile()) return null;
    return { body: readFileSync(path), contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}

/** The built page itself, read on each request (no-store), or null when the renderer is not built. */
export function readIndexPage(root: string): StaticFile | null {
  try {
    return { body: readFileSync(join(root, INDEX_FILE)), contentType: CONTENT_TYPES['.html'] as string };
  } catch {
    return null;
  }
}

/** Shown instead of the UI when the renderer was not built: no script, just what to do. */
export function missingRendererPage(root: string): StaticFile {
  const html = `<!doctype html><meta charset="utf-8"><title>Treewarden</title>
<h1>Treewarden</h1><p>The UI is not built (no index.html in ${root.replace(/[<>&"]/g, '')}).</p>
<p>Run <code>npm run build</code> in the repository, then start <code>treewarden serve</code> again.</p>`;
  return { body: Buffer.from(html), contentType: CONTENT_TYPES['.html'] as string };
}
