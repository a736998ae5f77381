/** A real server tree for the port tests: server (TCP + UDP) with a setsid child listener, and a client. */
import { type ProcessTracker, readReportedPids, removeTempDir, spawnFixture } from './index.js';

export interface ServerTree {
  readonly serverPid: number;
  readonly tcpPort: number;
  readonly udpPort: number;
  /** The setsid grandchild (of the test) that listens on its own port. */
  readonly listenerPid: number;
  readonly listenerPort: number;
  readonly dirs: string[];
}

export async function startServerTree(
  tracker: ProcessTracker,
  env: Readonly<Record<string, string>> = {},
): Promise<ServerTree> {
  const fixture = spawnFixture(tracker, 'port-server.mjs', [], { detached: true, env });
  const [server] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'server' });
  const [listener] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'listener' });
  if (server === undefined || listener === undefined) throw new Error('port-server.mjs did not report');
  return {
    serverPid: server.pid,
    tcpPort: server.tcpPort as number,
    udpPort: server.udpPort as number,
    listenerPid: listener.pid,
    listenerPort: listener.tcpPort as number,
    dirs: [fixture.dir],
  };
}

/** A client connected to `port`, in its own session (not in the server's tree). */
export async function startClient(tracker: ProcessTracker, port: number): Promise<{ pid: number; dir: string }> {
  const fixture = spawnFixture(tracker, 'port-client.mjs', [String(port)], { detached: true });
  await readReportedPids(tracker, fixture.reportFile, 1, { role: 'client' });
  return { pid: fixture.pid, dir: fixture.dir };
}

export function removeDirs(dirs: string[]): void {
  for (const dir of dirs.splice(0)) removeTempDir(dir);
}
