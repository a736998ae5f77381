/**
 * The guardian and the SessionEnd reaper are separate Node processes started on a critical path:
 * every `treewarden run` (and the app's and MCP server's first run) waits for its guardian's
 * "ready", and an agent's SessionEnd hook budget covers the reaper's start. Loaded as plain
 * modules each reads and links ~100 files first; one tree-shaken file each starts sooner.
 * GUARDIAN_ENTRY and REAPER_ENTRY point here. Built by `npm run build` after tsc (it bundles
 * dist/, not src/).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const dist = (path) => fileURLToPath(new URL(`./dist/${path}`, import.meta.url));

/**
 * One build per entry, each a single file: a chunk shared by the two would keep whatever either
 * uses, and a guardian idles as long as its lease (an MCP server's: a whole agent session).
 */
function bundle(name, entry) {
  return {
    input: dist(entry),
    platform: 'node',
    // A native addon, loaded with createRequire at first use: it stays a file in node_modules.
    external: ['koffi'],
    output: { file: dist(`bundle/${name}.js`), format: 'esm' },
  };
}

export default defineConfig([
  bundle('guardian', 'lease/guardian-main.js'),
  bundle('reaper', 'agents/hooks/reaper-main.js'),
]);
