/**
 * A watcher shares its state dir with the CLI: when `sessions` (or `orphans`) remembers a session
 * first, the store already knows it on the watcher's next full scan. The watcher must still say it
 * follows it (session-started), as it would have had it seen the session first. Shape as seen with
 * the real Kilo 7.7.7 run through its npm launcher: `node …/node_modules/.bin/kilo run "say hello"`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();

describe('a watcher sharing its store with the CLI', () => {
  it('announces a live session another observer remembered first, once', async () => {
    const stateRoot = makeTempDir();
    const install = makeTempDir('tw-kilo-install-');
    const launcher = join(install, 'node_modules', '.bin', 'kilo');
    mkdirSync(join(install, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(launcher, 'setInterval(() => {}, 1000);\n');
    const { rules } = loadAgentRules(stateRoot);
    const context = { stateRoot, rules, readMarkers: markerReaderFor(rules) };
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: 0 });
    watcher.tick();
    const kilo = spawn(process.execPath, [launcher, 'run', 'say hello'], { stdio: 'ignore' });
    tracker.trackChild(kilo);
    const pid = kilo.pid as number;
    // `treewarden sessions` sees it first and remembers it in the shared store.
    const cli = await pollUntil(() => observeAgentsOnce(context).live.find((session) => session.root.pid === pid), {
      description: 'the CLI to recognise the Kilo launcher',
    });
    expect(cli.agent).toBe('kilo');
    const started = watcher.tick().events.filter((event) => event.type === 'session-started');
    expect(started.map((event) => event.session.id)).toEqual([cli.id]);
    expect(watcher.tick().events.filter((event) => event.type === 'session-started')).toEqual([]);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });
});
