/**
 * Pile-up scenarios on real fake-agent trees: under Treewarden the engine's alert names
 * exactly the pile inside the live session, the trim ends exactly it, and every innocent (the agent
 * itself, the members it keeps, a second live session, an unrelated marker-less process) lives on;
 * --naive names the innocents the users' `pkill -f` patterns would hit (computed, never run). Either
 * way nothing the scenario started is alive afterwards.
 */
import { describe, expect, it } from 'vitest';
import {
  expectNaiveLeftSurvivorsThenCleaned,
  expectScenarioPassed,
  narrate,
  PILE_SCENARIOS,
  testTimeoutFor,
  useScenarioRunner,
} from './support.js';

const TREEWARDEN_CHECKS = [
  'the alert names exactly the pile',
  'no innocent was ever alerted',
  'the trim ended exactly the pile',
  'the piling agent and the members it keeps live on',
  'the other live session was left alone',
  'the unrelated marker-less process was left alone',
  'the alert cleared once the pile was gone',
];

describe('pile-up scenarios', () => {
  const run = useScenarioRunner();
  for (const name of PILE_SCENARIOS) {
    it(`${name}: the alert names exactly the pile, trim ends exactly it, innocents live`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      const result = await run(name);
      expectScenarioPassed(result);
      expect(
        result.checks.map((check) => check.name),
        narrate(result),
      ).toEqual(TREEWARDEN_CHECKS);
      const cast = result.outcome?.cast ?? [];
      expect(cast.filter((member) => member.role === 'pile').length).toBeGreaterThan(0);
      expect(cast.filter((member) => member.role === 'pile-agent')).toHaveLength(1);
      expect(cast.filter((member) => member.role === 'live-session-root')).toHaveLength(1);
      expect(cast.filter((member) => member.role === 'unrelated')).toHaveLength(1);
    });

    it(`${name} --naive: names the innocents pkill -f would hit, never runs it`, {
      timeout: testTimeoutFor(name),
    }, async () => {
      const result = await run(name, { naive: true });
      const story = narrate(result);
      expectNaiveLeftSurvivorsThenCleaned(result);
      const cast = result.outcome?.cast ?? [];
      const pile = cast.filter((member) => member.role === 'pile').map((member) => member.pid);
      const innocents = new Set(cast.filter((member) => member.role !== 'pile').map((member) => member.pid));
      const previews = result.outcome?.pkill ?? [];
      expect(previews.length, story).toBeGreaterThan(0);
      for (const preview of previews) {
        for (const innocent of preview.innocents) expect(innocents.has(innocent.pid), story).toBe(true);
        expect([...preview.leakedHit, ...preview.leakedMissed].sort(), story).toEqual([...pile].sort());
      }
      // Every pattern users post hits at least one innocent: that is the demo.
      expect(
        previews.every((preview) => preview.innocents.length > 0),
        story,
      ).toBe(true);
      expect(
        result.steps.some((step) => /computed, never run/.test(step.text)),
        story,
      ).toBe(true);
      // The pile was never judged or trimmed in naive mode: no check claims so.
      expect(
        result.checks.every((check) => check.name.startsWith('pkill -f')),
        story,
      ).toBe(true);
    });
  }
});
