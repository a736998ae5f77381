/**
 * The whole of `treewarden serve` as one function, shared by the CLI and the desktop start
 * script's fallback: start a host and the loopback server, print the URL (first line of stdout),
 * optionally open a browser, and on SIGINT/SIGTERM end the host's runs and stop.
 */
import { createEnginePort } from '../engine/binding.js';
import { createEngineHost } from '../host.js';
import { openBrowser } from './open-browser.js';
import { startServe } from './server.js';

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

function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // A second signal while stopping ends the process at once; the lease guardian then ends
      // the runs (it sees the lease pipe close), so nothing is left behind either way.
      const force = () => process.exit(1);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Resolves once the server stopped after a signal; rejects if it could not start. */
export async function serveUntilSignal(options: ServeMainOptions): Promise<void> {
  const write = options.write ?? writeTo(process.stdout);
  const writeError = options.writeError ?? writeTo(process.stderr);
  const stopped = nextStopSignal();
  const host = createEngineHost({ port: createEnginePort() });
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
  if (options.open) openBrowser(server.url);
  const signal = await stopped;
  await writeError(`treewarden: ${signal}: ending runs and stopping`);
  await server.close();
  await host.close();
}
