/**
 * `treewarden mcp` idles through a whole agent session, so what it loads stays resident. Loaded
 * as plain modules it holds the engine's whole barrel (160 modules), every zod locale and ajv:
 * ~64 MiB RSS idle. One tree-shaken file with ajv left out (src/mcp/no-ajv.ts says why) idles at
 * ~55 MiB. `run` is bundled for its start-up, which every supervised worker waits for.
 * main.ts starts both from here, and every other command but `serve` and `scenario` from the
 * split command table below.
 * Built by `npm run build` after tsc (it bundles dist/, not src/).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const NO_AJV = fileURLToPath(new URL('./dist/mcp/no-ajv.js', import.meta.url));
// jsonc-parser's `main` is a UMD build whose inner requires a bundle cannot follow: use its ESM build.
const JSONC_ESM = createRequire(import.meta.url).resolve('jsonc-parser/lib/esm/main.js');

/**
 * One build per entry, each a single file: built together they share a chunk, and that chunk keeps
 * whatever either entry uses, so the MCP server would hold `run`'s share of the engine too (+1.5 MiB).
 */
function bundle(name, entry, resolve) {
  return {
    input: fileURLToPath(new URL(entry, import.meta.url)),
    platform: 'node',
    // A native addon, loaded with createRequire at first use: it stays a file in node_modules.
    external: ['koffi'],
    resolve,
    // dist/bundle/ keeps each bundle two levels under the package, as dist/commands/ is, so
    // mcp.ts's `../../package.json` (the version) resolves the same from both.
    output: { file: fileURLToPath(new URL(`./dist/bundle/${name}.js`, import.meta.url)), format: 'esm' },
  };
}

/**
 * The command table, split per command (each command's module is its own chunk, loaded when it
 * runs): `kill`, `orphans`, `ps`… start in about half the time they take as ~200 dist modules.
 * `serve` and `scenario` never run from here (main.ts sends them to dist/cli.js): the host finds
 * its poll worker and the renderer, and the scenarios their fixtures, beside their own files.
 */
const commandTable = {
  input: fileURLToPath(new URL('./dist/cli.js', import.meta.url)),
  platform: 'node',
  external: ['koffi'],
  resolve: { alias: { 'jsonc-parser': JSONC_ESM } },
  // Chunk names carry content hashes: cleaned, so a rebuild leaves no stale chunk beside the new.
  output: { dir: fileURLToPath(new URL('./dist/bundle/cli/', import.meta.url)), format: 'esm', cleanDir: true },
};

export default defineConfig([
  bundle('mcp', './dist/mcp-main.js', { alias: { ajv: NO_AJV, 'ajv-formats': NO_AJV } }),
  bundle('run', './dist/run-main.js'),
  commandTable,
]);
