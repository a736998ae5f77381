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
import { type AgentEvent, createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();

function storeContext() {
  const stateRoot = makeTempDir();
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules) };
}

/**
 * The sessions of `pid` a tick announced: other tests' and other people's agents live on the same
 * machine, and a watcher's first tick rightly announces every live one.
 */
function startedFor(events: readonly AgentEvent[], pid: number): string[] {
  return events.flatMap((event) =>
    event.type === 'session-started' && event.session.root.pid === pid ? [event.session.id] : [],
  );
}

/** The launcher's shape; `seenByCli` is `treewarden sessions` remembering it in the shared store. */
function startKilo(context: ReturnType<typeof storeContext>) {
  const install = makeTempDir('tw-kilo-install-');
  const launcher = join(install, 'node_modules', '.bin', 'kilo');
  mkdirSync(join(install, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(launcher, 'setInterval(() => {}, 1000);\n');
  const kilo = spawn(process.execPath, [launcher, 'run', 'say hello'], { stdio: 'ignore' });
  tracker.trackChild(kilo);
  const pid = kilo.pid as number;
  const seenByCli = () =>
    pollUntil(() => observeAgentsOnce(context).live.find((session) => session.root.pid === pid), {
      description: 'the CLI to recognise the Kilo launcher',
    });
  return { pid, seenByCli };
}

describe('a watcher sharing its store with the CLI', () => {
  it('announces a live session another observer remembered first, once', async () => {
    const context = storeContext();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: 0 });
    watcher.tick();
    const { pid, seenByCli } = startKilo(context);
    const cli = await seenByCli();
    expect(cli.agent).toBe('kilo');
    expect(startedFor(watcher.tick().events, pid)).toEqual([cli.id]);
    expect(startedFor(watcher.tick().events, pid)).toEqual([]);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });

  it('announces it on its first tick when the CLI remembered it before the watcher started', async () => {
    const context = storeContext();
    const { pid, seenByCli } = startKilo(context);
    const cli = await seenByCli();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: 0 });
    expect(startedFor(watcher.tick().events, pid)).toEqual([cli.id]);
    expect(startedFor(watcher.tick().events, pid)).toEqual([]);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });
});
