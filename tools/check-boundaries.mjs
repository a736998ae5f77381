#!/usr/bin/env node
/**
 * Import boundaries, checked in `npm test` (and on its own: `node tools/check-boundaries.mjs`).
 * Reads every source file's imports with TypeScript's own pre-processor (comments and strings are
 * never mistaken for imports) and fails, naming file and import, when:
 * - a package reaches into another by relative path, or imports a workspace package it does not
 *   declare in its package.json;
 * - the renderer imports anything but the protocol, its own files and its declared UI libraries
 *   (no node:, no electron, no engine/host);
 * - the engine imports the host, the CLI, the desktop app, the scenarios or the bench;
 * - the protocol imports anything but zod and its own files;
 * - a test imports another package's dist or reaches into another package by relative path;
 * - inside a package, a folder imports one layered above it (PACKAGE_LAYERS: each package's folders
 *   under src/, bottom first), or a folder has no place in that order: no folder-level cycle;
 * - two or more modules of a package import each other (a cycle), except the listed known cycles,
 *   each of which must still exist exactly as listed (so a fixed one is taken off the list).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test-results', 'playwright-report', 'release']);

/**
 * Cycles known and scheduled for later; each entry is one cycle's files, repo-relative. The check
 * fails if a listed cycle no longer exists exactly like this (fixed or grown): update the list.
 */
const KNOWN_CYCLES = [
  // Empty: a future exception goes here, with why it is tolerated and what removes it, e.g.
  // ['packages/engine/src/a/x.ts', 'packages/engine/src/b/y.ts'],
];

/** What each package's own sources may import besides relative files inside the package. */
const RULES = {
  '@treewarden/renderer': {
    allow: (specifier) => specifier === '@treewarden/protocol' || !specifier.startsWith('@treewarden/'),
    forbid: (specifier) => specifier.startsWith('node:') || specifier === 'electron' || NODE_BUILTINS.has(specifier),
    why: 'the renderer knows only the protocol (no Node, no Electron, no engine/host)',
  },
  '@treewarden/protocol': {
    allow: (specifier) => specifier === 'zod' || specifier.startsWith('zod/'),
    why: 'the protocol is the UI-safe contract: zod and its own files only',
  },
  '@treewarden/engine': {
    forbid: (specifier) =>
      /^@treewarden\/(host|cli|desktop|renderer|scenarios|bench|e2e)(\/|$)/.test(specifier) || specifier === 'electron',
    why: 'the engine never imports the host, the apps, the scenarios or the bench, nor Electron',
  },
};

/**
 * Each package's folders under src/, bottom layer first. A module may import its own folder and
 * the folders listed before it, never one after it: an import against this order fails, and so
 * does a folder missing from its package's list (add it where it belongs). A strict order has no
 * folder-level cycle, so this is also the cycle check between folders. docs/ARCHITECTURE.md draws
 * the engine's order from this list; a package not listed here has no folders under src/.
 */
const PACKAGE_LAYERS = {
  'packages/engine': [
    'runtime', // waits with bounds, capabilities, native calls (pidfd), the environment
    'state', // the private state dir
    'table', // process tables and identity
    'signal', // guarded signalling
    'membership', // evidence of who belongs to a run: run cookies, the tracker, the one-shot query
    'ownership', // the revalidating tree owner
    'kill', // the revalidated tree kill
    'classify', // outcome classification
    'run', // the run supervisor
    'ports', // listeners by identity
    'containers', // which container a process runs in (Docker Engine API over its socket)
    'ledger', // the append-only ledger
    'ending', // ending members, each kill with its ledger record
    'lease', // leases and guardians
    'orphans', // the leak finder for runs
    'agents', // agent sessions, alerts, hooks
    'compat', // adapters over the public API
  ],
  'packages/host': ['engine', 'snapshot', 'poll', 'serve', 'commands', 'export'],
  'packages/scenarios': ['agents', 'definitions'],
  'apps/cli': ['mcp', 'commands'],
  'apps/desktop': ['node', 'electron-main'],
  'apps/renderer': ['styles', 'model', 'store', 'transport', 'hooks', 'actions', 'components'],
};

/**
 * Folders large enough to need an order of their own inside one layer: the same rule one level
 * down (a sub-folder imports its own and those before it; the folder's top-level files, such as
 * its barrel, may import any of them).
 */
const NESTED_LAYERS = {
  'packages/engine/src/agents': [
    'read', // what agents need of /proc beyond the table: environments, per-tick stats
    'rules', // agent rules as data, their schema, breadth check and matching
    'sessions', // recognition, remembered sessions and their store
    'leaks', // leak judgement with evidence, finding and cleaning
    'observe', // the observer and the watcher's tables
    'alerts', // pile-up alerts and trim
    'hooks', // SessionStart/SessionEnd hooks and the reaper
  ],
};

/** The nested root and its sub-folder of a repo-relative path, or undefined. */
function nestedLayerOf(where) {
  const path = where.split(sep).join('/');
  for (const root of Object.keys(NESTED_LAYERS)) {
    if (!path.startsWith(`${root}/`)) continue;
    const rest = path.slice(root.length + 1).split('/');
    return rest.length >= 2 ? { pkg: root, folder: rest[0] } : undefined;
  }
  return undefined;
}

/** The package dir and the folder under its src/ of a repo-relative path, or undefined (a top-level file). */
function layerOf(where) {
  const parts = where.split(sep).join('/').split('/');
  const srcAt = parts.indexOf('src');
  if (srcAt < 1 || parts.length <= srcAt + 2) return undefined;
  return { pkg: parts.slice(0, srcAt).join('/'), folder: parts[srcAt + 1] };
}

/** docs/ARCHITECTURE.md states each package's order in a line of its own; it must say what the list says. */
function checkLayerDoc(problems) {
  const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  for (const [pkg, order] of [...Object.entries(PACKAGE_LAYERS), ...Object.entries(NESTED_LAYERS)]) {
    const line = doc.split('\n').find((text) => text.startsWith(`- \`${pkg}\`: `));
    const stated = line?.slice(`- \`${pkg}\`: `.length).trim();
    if (stated !== order.join(' < ')) {
      problems.push(`docs/ARCHITECTURE.md: the layer line of ${pkg} must read "- \`${pkg}\`: ${order.join(' < ')}"`);
    }
  }
}

/** Every folder under a package's src/ must have its place in the order (one with no imports too). */
function checkLayerLists(workspaces, problems) {
  for (const workspace of workspaces) {
    const pkg = relative(ROOT, workspace.dir).split(sep).join('/');
    const src = join(workspace.dir, 'src');
    if (!existsSync(src)) continue;
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    const order = PACKAGE_LAYERS[pkg] ?? [];
    for (const folder of folders) {
      if (!order.includes(folder))
        problems.push(`${pkg}/src/${folder}/ has no place in PACKAGE_LAYERS; add it to the order`);
    }
    for (const folder of order) {
      if (!folders.includes(folder)) problems.push(`PACKAGE_LAYERS lists ${pkg}/src/${folder}/, which does not exist`);
    }
  }
  for (const [root, order] of Object.entries(NESTED_LAYERS)) {
    const dir = join(ROOT, root);
    const folders = readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
    for (const folder of folders)
      if (!order.includes(folder))
        problems.push(`${root}/${folder}/ has no place in NESTED_LAYERS; add it to the order`);
    for (const folder of order)
      if (!folders.includes(folder)) problems.push(`NESTED_LAYERS lists ${root}/${folder}/, which does not exist`);
  }
}

/** Inside a nested root: a sub-folder never imports one after it (unlisted ones are reported by checkLayerLists). */
function checkNestedLayer(where, target, problems) {
  const from = nestedLayerOf(where);
  const to = nestedLayerOf(relative(ROOT, target));
  if (from === undefined || to === undefined || from.pkg !== to.pkg) return;
  const order = NESTED_LAYERS[from.pkg];
  if (!order.includes(from.folder) || !order.includes(to.folder)) return;
  if (order.indexOf(to.folder) > order.indexOf(from.folder)) {
    problems.push(
      `${where}: imports ${relative(ROOT, target)}; ${from.folder}/ lies below ${to.folder}/ in ${from.pkg}'s layer order (${order.join(' < ')})`,
    );
  }
}

function checkLayer(where, target, problems) {
  const from = layerOf(where);
  const to = layerOf(relative(ROOT, target));
  if (from === undefined || to === undefined || from.pkg !== to.pkg) return;
  const order = PACKAGE_LAYERS[from.pkg];
  for (const { folder } of [from, to]) {
    if (order === undefined || !order.includes(folder)) {
      problems.push(`${where}: folder ${from.pkg}/src/${folder}/ has no place in PACKAGE_LAYERS; add it to the order`);
      return;
    }
  }
  if (order.indexOf(to.folder) > order.indexOf(from.folder)) {
    problems.push(
      `${where}: imports ${relative(ROOT, target)}; ${from.folder}/ lies below ${to.folder}/ in ${from.pkg}'s layer order (${order.join(' < ')})`,
    );
  }
}

/**
 * Tests that must load their own package's built output, each with why. The desktop main is
 * booted as Electron runs it: dist/main.js finds dist/preload.cjs and the renderer next to it, so
 * only the built file answers "are the paths right" (npm test builds before it tests).
 */
const BUILT_OUTPUT_UNDER_TEST = new Set(['apps/desktop/test/support/load-main.ts']);

/**
 * Loaded by the engine (no zod) and bundled by the renderer: the shared words and the rules both
 * sides of the wire apply, each importing nothing.
 */
const IMPORT_FREE_SHARED = new Set([
  'packages/protocol/src/vocabulary.ts',
  'packages/protocol/src/limit-text.ts',
  'packages/protocol/src/usage-window.ts',
  'packages/protocol/src/identity-key.ts',
]);

const NODE_BUILTINS = new Set(createRequire(import.meta.url)('node:module').builtinModules);

function listFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...listFiles(path));
    else if (SOURCE_EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function readWorkspaces() {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return root.workspaces.map((dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    return { dir: join(ROOT, dir), name: manifest.name, declared };
  });
}

function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((entry) => entry.fileName);
}

/** The workspace a path lies in (longest matching directory), or undefined for the repo root. */
function workspaceOf(workspaces, path) {
  return workspaces
    .filter((ws) => path === ws.dir || path.startsWith(ws.dir + sep))
    .sort((a, b) => b.dir.length - a.dir.length)[0];
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** `./x.js` → the .ts/.tsx file it compiles from (or the file itself when it exists). */
function resolveRelative(from, specifier) {
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.(m?js|jsx)$/, '');
  for (const candidate of [target, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(target, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function isTestFile(workspace, file) {
  const inside = relative(workspace.dir, file).split(sep)[0];
  return ['test', 'specs', 'support', 'bench', 'fixtures'].includes(inside);
}

/** Shared test helpers: any package's tests may import these by relative path. */
const TEST_SUPPORT_DIR = join(ROOT, 'test-support');

function checkFile(workspaces, file, graph, problems) {
  const workspace = workspaceOf(workspaces, file);
  const where = relative(ROOT, file);
  const isTest = workspace === undefined || isTestFile(workspace, file);
  const rule = workspace && !isTest ? RULES[workspace.name] : undefined;
  const imports = importsOf(file);
  if (IMPORT_FREE_SHARED.has(where.split(sep).join('/')) && imports.length > 0) {
    problems.push(
      `${where}: imports ${imports.join(', ')}; a module shared by engine and renderer must import nothing`,
    );
  }
  for (const specifier of imports) {
    if (specifier.startsWith('.')) {
      const target = resolveRelative(file, specifier);
      const targetWorkspace = target
        ? workspaceOf(workspaces, target)
        : workspaceOf(workspaces, resolve(dirname(file), specifier));
      const intoTestSupport = isTest && resolve(dirname(file), specifier).startsWith(TEST_SUPPORT_DIR + sep);
      if (targetWorkspace !== workspace && !intoTestSupport) {
        problems.push(`${where}: '${specifier}' reaches into another package by relative path; import it by name`);
      } else if (target && /[\\/]dist[\\/]/.test(relative(ROOT, target)) && !BUILT_OUTPUT_UNDER_TEST.has(where)) {
        problems.push(`${where}: '${specifier}' imports built output; import the source or the package`);
      }
      if (target && workspace && !isTest) {
        checkLayer(where, target, problems);
        checkNestedLayer(where, target, problems);
        if (!graph.has(file)) graph.set(file, new Set());
        graph.get(file).add(target);
      }
      continue;
    }
    if (/^@treewarden\/[^/]+\/dist(\/|$)/.test(specifier)) {
      problems.push(`${where}: '${specifier}' imports another package's dist; import the package`);
    }
    const name = packageName(specifier);
    if (workspace && name.startsWith('@treewarden/') && name !== workspace.name && !workspace.declared.has(name)) {
      problems.push(`${where}: imports ${name}, which ${relative(ROOT, workspace.dir)}/package.json does not declare`);
    }
    if (rule && ((rule.allow && !rule.allow(specifier)) || rule.forbid?.(specifier))) {
      problems.push(`${where}: '${specifier}' is not allowed here: ${rule.why}`);
    }
  }
}

/** Tarjan's strongly connected components; every component of 2+ files is a cycle. */
function findCycles(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (node) => {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indexOf.get(next)));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.map((file) => relative(ROOT, file)).sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return cycles;
}

function checkCycles(graph, problems) {
  const cycles = findCycles(graph);
  const key = (files) => [...files].sort().join(' ↔ ');
  const known = new Set(KNOWN_CYCLES.map(key));
  const found = new Set(cycles.map(key));
  for (const cycle of found) {
    if (!known.has(cycle)) problems.push(`import cycle: ${cycle}`);
  }
  for (const cycle of known) {
    if (!found.has(cycle)) {
      problems.push(`known cycle no longer exists as listed (fixed or changed): ${cycle}; update KNOWN_CYCLES`);
    }
  }
  return cycles.length;
}

function main() {
  const workspaces = readWorkspaces();
  const roots = [...workspaces.map((ws) => ws.dir), join(ROOT, 'test-support'), join(ROOT, 'tools')];
  const files = roots.filter((dir) => existsSync(dir)).flatMap(listFiles);
  const graph = new Map();
  const problems = [];
  checkLayerLists(workspaces, problems);
  checkLayerDoc(problems);
  for (const file of new Set(files)) checkFile(workspaces, file, graph, problems);
  const cycleCount = checkCycles(graph, problems);
  if (problems.length > 0) {
    console.error(`check-boundaries: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `check-boundaries: ${files.length} files, ${workspaces.length} packages, ${cycleCount} known cycle(s) (${KNOWN_CYCLES.length} listed), no violations`,
  );
}

main();
