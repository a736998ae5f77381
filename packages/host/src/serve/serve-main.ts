/**
 * The whole of `treewarden serve` as one function, shared by the CLI and the desktop start
 * script's fallback: start a host and the loopback server, print the URL (first line of stdout),
 * optionally open a browser through a private launch page, and on SIGINT/SIGTERM end the host's
 * runs and stop.
 */
import { endNativeThreads, ensureStateDir } from '@treewarden/engine';
import { createEnginePort } from '../engine/binding.js';
import { createEngineHost } from '../host.js';
import { type LaunchPage, launchTarget, writeLaunchPage } from './launch-page.js';
import { openInBrowser } from './open-browser.js';
import { type ServeHandle, startServe } from './server.js';

export interface ServeMainOptions {
  readonly port: number;
  readonly open: boolean;
  /** Printed on stderr instead of the usual banner (e.g. why the desktop app is not starting). */
  readonly notice?: string;
  readonly write?: (line: string) => Promise<void>;
  readonly writeError?: (line: string) => Promise<void>;
}

function writeTo(stream: NodeJS.WriteStream): (line: string) => Promise<void> {
  return (line) => new Promise((resolve) => stream.write(`${line}\n`, () => resolve()));
}

/** How long a forced stop waits for the native threads to end. */
const FORCED_END_MS = 1_000;

function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // A second signal while stopping ends the process (its native threads first, briefly: one
      // stopped inside a koffi definition would abort it); the lease guardian then ends the runs
      // (it sees the lease pipe close), so nothing is left behind either way.
      const force = () => void endNativeThreads(FORCED_END_MS).finally(() => process.exit(1));
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * Writes the launch page and opens it; the page is removed when serve stops, also on
 * process.exit (a second Ctrl-C). A page that cannot be written opens nothing: the token never
 * falls back to a command line.
 */
async function openLaunchPage(
  server: ServeHandle,
  writeError: (line: string) => Promise<void>,
): Promise<LaunchPage | null> {
  let page: LaunchPage;
  try {
    page = writeLaunchPage(ensureStateDir().root, launchTarget(server.port, server.address, server.token));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await writeError(`treewarden: not opening a browser (${reason}); open the URL above yourself`);
    return null;
  }
  const removeOnExit = () => page.remove();
  process.once('exit', removeOnExit);
  openInBrowser(page.path);
  return {
    path: page.path,
    remove: () => {
      process.off('exit', removeOnExit);
      page.remove();
    },
  };
}

/** Resolves once the server stopped after a signal; rejects if it could not start. */
export async function serveUntilSignal(options: ServeMainOptions): Promise<void> {
  const write = options.write ?? writeTo(process.stdout);
  const writeError = options.writeError ?? writeTo(process.stderr);
  const stopped = nextStopSignal();
  // Its settings may switch the exporter on: it runs in this host, on its own observer.
  const host = createEngineHost({ port: createEnginePort(), exportFromSettings: true });
  let server: Awaited<ReturnType<typeof startServe>>;
  try {
    server = await startServe({ host, port: options.port });
  } catch (error) {
    await host.close();
    throw error;
  }
  await write(server.url);
  // The notice (why the desktop app did not start) replaces the banner: one line, not two.
  await writeError(
    options.notice ??
      `treewarden: serving the UI on ${server.address}:${server.port} only; Ctrl-C stops it and ends its runs`,
  );
  const launchPage = options.open ? await openLaunchPage(server, writeError) : null;
  const signal = await stopped;
  launchPage?.remove();
  await writeError(`treewarden: ${signal}: ending runs and stopping`);
  await server.close();
  await host.close();
}
