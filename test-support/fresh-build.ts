/**
 * Tests load built output in places (the CLI as users run it, the guardian and reaper bundles,
 * the desktop main, the renderer served by `serve`). A test run after an edit without a build
 * would test the old code and say nothing, so the suite refuses to start when any source file
 * changed after the last `npm run build` (tools/build-stamp.mjs writes the stamp), naming it.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'node_modules', '.treewarden-build-stamp');
/** Where built code comes from: each workspace's src/ (and the engine's fixtures, run as they are, are not built). */
const SOURCE_ROOTS = ['packages', 'apps'];
const SOURCE_FILE = /\.(ts|tsx|mts|css|html|json)$/;
const SKIPPED = new Set(['node_modules', 'dist', 'test', 'test-results', 'fixtures', 'bench']);

function newestSource(dir: string, newest: { path: string; mtimeMs: number }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newestSource(path, newest);
    else if (SOURCE_FILE.test(entry.name) && path.includes(`${sep}src${sep}`)) {
      const { mtimeMs } = statSync(path);
      if (mtimeMs > newest.mtimeMs) Object.assign(newest, { path, mtimeMs });
    }
  }
}

export default function checkFreshBuild(): void {
  let builtAtMs: number;
  try {
    builtAtMs = statSync(STAMP).mtimeMs;
  } catch {
    throw new Error('No build found: run `npm run build` before the tests (they load built output in places).');
  }
  const newest = { path: '', mtimeMs: 0 };
  for (const root of SOURCE_ROOTS) newestSource(join(ROOT, root), newest);
  if (newest.mtimeMs > builtAtMs) {
    throw new Error(
      `${relative(ROOT, newest.path)} changed after the last build: run \`npm run build\` first ` +
        '(tests load built output in places, and would test the old code).',
    );
  }
}
