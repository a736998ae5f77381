/**
 * Starts one real `treewarden serve` (private TREEWARDEN_HOME) for the whole e2e run and returns
 * the teardown that stops it by pid. Workers read the URL from the environment.
 */
import { existsSync } from 'node:fs';
import { CLI_MAIN, ELECTRON_SKIP_MESSAGE, findElectronBinary, HOME_ENV, RENDERER_INDEX, URL_ENV } from './env';
import { startServe } from './serve';

export default async function globalSetup(): Promise<() => Promise<void>> {
  for (const [file, what] of [
    [CLI_MAIN, 'the CLI'],
    [RENDERER_INDEX, 'the renderer'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${what} is not built (${file} is missing): run \`npm run build\` first`);
  }
  if (!findElectronBinary()) console.log(ELECTRON_SKIP_MESSAGE);
  const serve = await startServe();
  process.env[URL_ENV] = serve.url;
  process.env[HOME_ENV] = serve.home;
  return () => serve.stop();
}
