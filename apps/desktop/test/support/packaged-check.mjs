// Run with Node from inside a packaged app (argv[2]: resources/app): loads the packaged engine
// (and the scenario library, which lives in its own package)
// exactly as the app and its guardian do, probes the native capabilities, opens a lease from
// the packaged tree (its guardian is the packaged engine bundle, dist/bundle/guardian.js) and prints one JSON object.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const appDir = process.argv[2];
const engineUrl = pathToFileURL(join(appDir, 'node_modules/@treewarden/engine/dist/index.js')).href;
const engine = await import(engineUrl);
const scenariosUrl = pathToFileURL(join(appDir, 'node_modules/@treewarden/scenarios/dist/index.js')).href;
const scenarioLibrary = await import(scenariosUrl);
const capabilities = engine.readNativeCapabilities();
const stateDir = mkdtempSync(join(tmpdir(), 'tw-packaged-state-'));
try {
  const lease = await engine.openLease({
    name: 'packaging-check',
    holder: 'packaging test',
    stateDir,
    guardianOutput: 'ignore',
  });
  const subreaper = lease.subreaper;
  const released = await lease.release();
  process.stdout.write(
    JSON.stringify({
      capabilities,
      warnings: engine.capabilityWarnings(capabilities),
      guardian: { subreaper, exited: released.guardianExited },
      scenarios: scenarioLibrary.listScenarios().length,
    }),
  );
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
