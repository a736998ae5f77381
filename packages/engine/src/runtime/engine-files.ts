/**
 * Where the engine's built files are. Found through the package's own name (Node resolves a
 * package from inside itself), not from this module's location: the CLI's `run` and `mcp`
 * bundles (and the engine's own) inline engine modules into one file elsewhere, and a path
 * relative to `import.meta.url` would then point beside the bundle. The package.json always exists, built or not, so resolving it
 * never throws at load; a missing entry is reported where it is started.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const ENGINE_ROOT = dirname(createRequire(import.meta.url).resolve('@treewarden/engine/package.json'));

/** A file under the engine's dist/, by its path there (`bundle/guardian.js`). */
export function engineDistFile(pathInDist: string): string {
  return join(ENGINE_ROOT, 'dist', pathInDist);
}
