/**
 * `treewarden mcp` idles through a whole agent session, so what it loads stays resident. Loaded
 * as plain modules it holds the engine's whole barrel (160 modules), every zod locale and ajv:
 * ~64 MiB RSS idle. One tree-shaken file with ajv left out (src/mcp/no-ajv.ts says why) idles at
 * ~55 MiB. `run` is bundled for its start-up, which every supervised worker waits for (what
 * the two share is one chunk). main.ts starts both from here; every other command runs from
 * tsc's dist.
 * Built by `npm run build` after tsc (it bundles dist/, not src/).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const NO_AJV = fileURLToPath(new URL('./dist/mcp/no-ajv.js', import.meta.url));

export default defineConfig({
  input: {
    mcp: fileURLToPath(new URL('./dist/mcp-main.js', import.meta.url)),
    run: fileURLToPath(new URL('./dist/run-main.js', import.meta.url)),
  },
  platform: 'node',
  // A native addon, loaded with createRequire at first use: it stays a file in node_modules.
  external: ['koffi'],
  resolve: { alias: { ajv: NO_AJV, 'ajv-formats': NO_AJV } },
  // dist/bundle/ keeps the bundle two levels under the package, as dist/commands/mcp.ts is, so its
  // `../../package.json` (the version) resolves the same from both.
  output: {
    dir: fileURLToPath(new URL('./dist/bundle', import.meta.url)),
    // A chunk of an earlier build must not linger beside the current ones.
    cleanDir: true,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'shared-[hash].js',
  },
});
