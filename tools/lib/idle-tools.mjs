// What the idle measuring tools (tools/idle-sessions.mjs, observer-ab.mjs, rootwatch-ab.mjs) share:
// the bench's built modules (fake sessions, the pause-tree load), the fake Claude fixture, and a
// `--name value` option reader over the command line.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** A module of packages/bench's build (`npm run build` first). */
export const benchModule = (name) => import(resolve(repo, 'packages/bench/dist', name));

export const FAKE_CLAUDE = resolve(repo, 'packages/engine/fixtures/agents/fake-claude.mjs');

/** `opt(name, fallback)` takes `--name value` out of `args` (what is left are the positionals). */
export function optionReader(args) {
  return (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    if (at < 0) return fallback;
    const [, value] = args.splice(at, 2);
    return value;
  };
}
