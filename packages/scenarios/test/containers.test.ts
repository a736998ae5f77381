/**
 * container-left-by-session through the built CLI, with a real Docker Engine: under Treewarden the
 * engine attributes each session's `docker run -d` to it from the event stream and, once the
 * session died, stops exactly its container (the live session's and the person's own keep
 * running); --naive names what `docker ps -q | xargs docker stop` would stop (the innocents) and
 * that `pkill -f docker` misses the container. The scenario removes its own containers.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { requireTestEngine } from '../../../test-support/docker-engine.js';
import type { ScenarioResult } from '../src/index.js';
import { CLI, CLI_MISSING, collect, expectScenarioPassed, narrate, testTimeoutFor } from './support.js';

const NAME = 'container-left-by-session';
const engine = await requireTestEngine();
const skipReason = 'skip' in engine ? engine.skip : CLI_MISSING === '' ? null : CLI_MISSING;
if (skipReason !== null) console.warn(`container scenario tests skipped: ${skipReason}`);
const env = { ...process.env, ...('socketPath' in engine ? { DOCKER_HOST: `unix://${engine.socketPath}` } : {}) };

async function runThroughCli(naive: boolean): Promise<{ code: number | null; stderr: string; result: ScenarioResult }> {
  const args = [CLI, 'scenario', 'run', NAME, '--json', ...(naive ? ['--naive'] : [])];
  const run = await collect(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env }));
  return { code: run.code, stderr: run.stderr, result: JSON.parse(run.stdout) as ScenarioResult };
}

describe.skipIf(skipReason !== null)('the container scenario through the CLI', () => {
  it('stops exactly the dead session’s container; the live one and your own keep running', {
    timeout: testTimeoutFor(NAME),
  }, async () => {
    const { code, stderr, result } = await runThroughCli(false);
    expect(code, `${stderr}\n${narrate(result)}`).toBe(0);
    expectScenarioPassed(result);
    const checks = new Map(result.checks.map((check) => [check.name, check.ok]));
    expect(checks.get("only the dead session's container was judged a leftover")).toBe(true);
    expect(checks.get('the engine stopped the leftover container through its API')).toBe(true);
    expect(checks.get("the live session's container and your own were left running")).toBe(true);
  });

  it('--naive: docker ps | xargs docker stop would stop the innocents; pkill -f docker misses the container', {
    timeout: testTimeoutFor(NAME),
  }, async () => {
    const { code, stderr, result } = await runThroughCli(true);
    const story = `${stderr}\n${narrate(result)}`;
    expect(code, story).toBe(0);
    const [stopAll, pkill] = result.outcome?.pkill ?? [];
    expect(stopAll?.command, story).toBe('docker ps -q | xargs docker stop');
    expect(new Set(stopAll?.innocents.map((m) => m.role)), story).toEqual(
      new Set(['live-session-member', 'unrelated']),
    );
    expect(stopAll?.leakedHit, story).toHaveLength(1);
    expect(pkill?.command, story).toBe('pkill -f docker');
    expect(pkill?.leakedHit, story).toEqual([]);
    expect(pkill?.leakedMissed, story).toHaveLength(1);
    expect(
      result.steps.some((step) => /computed, never run/.test(step.text)),
      story,
    ).toBe(true);
  });
});
