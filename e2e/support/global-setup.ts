/**
 * Starts one real `treewarden serve` (private TREEWARDEN_HOME) for the whole e2e run and returns
 * the teardown that stops it by pid. Workers read the URL from the environment. The unit suite's
 * leak guard watches this suite too: every process started from here on (serve and what it runs,
 * the workers, their browsers and fixtures) carries its marker, and any still alive once serve has
 * stopped fails the run (after being ended by pid).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEngine } from '../../test-support/docker-engine.js';
import startLeakGuard from '../../test-support/leak-guard.js';
import {
  CLI_MAIN,
  ELECTRON_SKIP_MESSAGE,
  FIXTURE_REPORT_ENV,
  findElectronBinary,
  HOME_ENV,
  RENDERER_INDEX,
  URL_ENV,
} from './env';
import { startServe } from './serve';

export default async function globalSetup(): Promise<() => Promise<void>> {
  for (const [file, what] of [
    [CLI_MAIN, 'the CLI'],
    [RENDERER_INDEX, 'the renderer'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${what} is not built (${file} is missing): run \`npm run build\` first`);
  }
  if (!findElectronBinary()) console.log(ELECTRON_SKIP_MESSAGE);
  const judgeLeaks = startLeakGuard();
  // Set before the host starts: the runs it launches inherit it, so specs can wait for a fixture's
  // ready report instead of its row (a row shows before the fixture's handlers are installed).
  const reports = mkdtempSync(join(tmpdir(), 'tw-e2e-reports-'));
  process.env[FIXTURE_REPORT_ENV] = join(reports, 'reports.jsonl');
  // The Docker Engine (where one can run) is up before serve starts: serve learns which session
  // made a container from the engine's event stream, and a daemon that comes up later is followed
  // only from its next reconnect, after a container a spec starts at once may already exist.
  const engine = await testEngine();
  if ('skip' in engine) console.log(`Container specs: ${engine.skip}`);
  const serve = await startServe();
  process.env[URL_ENV] = serve.url;
  process.env[HOME_ENV] = serve.home;
  return async () => {
    await serve.stop();
    rmSync(reports, { recursive: true, force: true });
    await judgeLeaks();
  };
}
