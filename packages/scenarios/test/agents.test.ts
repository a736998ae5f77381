/**
 * Agent-leak scenarios through the built CLI (`treewarden scenario run NAME [--naive] --json`),
 * on real fake-agent trees: under Treewarden the engine ends exactly the dead session's leak and
 * leaves the live session and the unrelated process alone; --naive names the innocent pids the
 * users' `pkill -f` patterns would hit (never run) next to the leaked ones they would miss. Either
 * way nothing the scenario started is alive afterwards.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../src/index.js';
import {
  AGENT_SCENARIOS,
  CLI,
  CLI_MISSING,
  type CliRun,
  collect,
  expectNaiveLeftSurvivorsThenCleaned,
  expectScenarioPassed,
  narrate,
  TEAM_SCENARIOS,
  testTimeoutFor,
} from './support.js';

/** Runs the scenario through the CLI; the scenario's own time bound ends it if it hangs. */
async function runThroughCli(name: string, naive: boolean): Promise<{ run: CliRun; result: ScenarioResult }> {
  const args = [CLI, 'scenario', 'run', name, '--json', ...(naive ? ['--naive'] : [])];
  const run = await collect(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  return { run, result: JSON.parse(run.stdout) as ScenarioResult };
}

describe.skipIf(CLI_MISSING !== '')(`agent-leak scenarios through the CLI${CLI_MISSING}`, () => {
  for (const name of [...AGENT_SCENARIOS, ...TEAM_SCENARIOS]) {
    it(`${name}: the engine ends exactly the leak; the live session and the unrelated process are left alone`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      const { run, result } = await runThroughCli(name, false);
      expect(run.code, `${run.stderr}\n${narrate(result)}`).toBe(0);
      expectScenarioPassed(result);
      const checks = new Map(result.checks.map((check) => [check.name, check.ok]));
      expect(checks.get('the engine ended exactly the leaked members')).toBe(true);
      expect(checks.get('the live session was left alone')).toBe(true);
      expect(checks.get('the unrelated marker-less process was left alone')).toBe(true);
      if (name === 'agent-terminal-closed') {
        expect(checks.get('the leaked dev server still holds its port after the hang-up')).toBe(true);
        expect(checks.get('the port is free after the clean-up')).toBe(true);
      }
      const cast = result.outcome?.cast ?? [];
      expect(cast.filter((member) => member.role === 'leaked').length).toBeGreaterThan(0);
      expect(cast.filter((member) => member.role === 'live-session-root')).toHaveLength(1);
      expect(cast.filter((member) => member.role === 'unrelated')).toHaveLength(1);
    });

    it(`${name} --naive: names the innocent pids pkill -f would hit, and the leaked ones it would miss`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      const { run, result } = await runThroughCli(name, true);
      const story = `${run.stderr}\n${narrate(result)}`;
      expect(run.code, story).toBe(0);
      expectNaiveLeftSurvivorsThenCleaned(result);
      const cast = result.outcome?.cast ?? [];
      const previews = result.outcome?.pkill ?? [];
      expect(previews.length, story).toBeGreaterThan(0);
      const leaked = cast.filter((member) => member.role === 'leaked').map((member) => member.pid);
      const innocentPids = new Set(cast.filter((member) => member.role !== 'leaked').map((member) => member.pid));
      const seen = new Map(result.seen.map((process) => [process.pid, process.command]));
      for (const preview of previews) {
        // Every innocent named is a bystander the scenario started, and pkill -f's pattern matches what the census saw of it.
        for (const innocent of preview.innocents) {
          expect(innocentPids.has(innocent.pid), story).toBe(true);
          expect(seen.get(innocent.pid) ?? '', story).toMatch(new RegExp(preview.pattern));
        }
        expect([...preview.leakedHit, ...preview.leakedMissed].sort(), story).toEqual([...leaked].sort());
      }
      // The first pattern users post hits the unrelated process and the live session.
      const roles = new Set(previews[0]?.innocents.map((innocent) => innocent.role));
      expect(roles.has('unrelated'), story).toBe(true);
      expect(roles.has('live-session-root') || roles.has('live-session-member'), story).toBe(true);
      const unrelated = cast.find((member) => member.role === 'unrelated');
      expect(JSON.stringify(result.checks), story).toContain(String(unrelated?.pid));
      expect(
        result.steps.some((step) => /computed, never run/.test(step.text)),
        story,
      ).toBe(true);
    });
  }
});
