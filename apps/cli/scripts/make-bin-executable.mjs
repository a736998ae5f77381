// tsc writes dist/main.js without the executable bit, and npm only sets it when it links the bin
// at install time (before a fresh clone has a dist). Without it `npx treewarden` fails with
// "Permission denied", so the build sets it. Windows runs bins through node shims: nothing to do.
import { chmodSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (process.platform !== 'win32' && existsSync(main)) chmodSync(main, 0o755);
