#!/usr/bin/env node
/**
 * The last step of `npm run build`: records when the build finished, so the test suite can tell
 * built output that is older than its source (test-support/fresh-build.ts). A stamp rather than
 * dist/ mtimes: an incremental tsc leaves outputs untouched when a source's content did not change
 * (a git checkout), which would read as stale forever.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const stamp = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.treewarden-build-stamp');
writeFileSync(stamp, `${new Date().toISOString()}\n`);
