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

export default defineConfig({
  input: { guardian: dist('lease/guardian-main.js'), reaper: dist('agents/hooks/reaper-main.js') },
  platform: 'node',
  // A native addon, loaded with createRequire at first use: it stays a file in node_modules.
  external: ['koffi'],
  // cleanDir: a chunk of an earlier build must not linger beside the current ones.
  output: {
    dir: dist('bundle'),
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'shared-[hash].js',
  },
});
