/**
 * A slow demo pace, so a person can watch a tree before its timeout ends it. Only scenarios that
 * end by their timeout are slowed: the others race a timeout on purpose (exit in the same instant)
 * or are driven step by step, and a longer timeout would change what they show. The time bound
 * grows with the timeout, and the sandbox derives the fixtures' lifetime caps from that bound.
 */
import type { ScenarioDefinition } from './types.js';

export type ScenarioPace = 'normal' | 'slow';

/** How much longer a slow-paced scenario's timeout (and time bound) is. */
export const SLOW_PACE_FACTOR = 5;

/** Whether `pace: 'slow'` changes this scenario (the launcher says so beside the choice). */
export function isPaceable(definition: ScenarioDefinition): boolean {
  return (
    definition.worker !== undefined &&
    definition.drive === undefined &&
    definition.expected.classification === 'timeout'
  );
}

export function pacedDefinition(definition: ScenarioDefinition, pace: ScenarioPace = 'normal'): ScenarioDefinition {
  const worker = definition.worker;
  if (pace === 'normal' || worker === undefined || !isPaceable(definition)) return definition;
  return {
    ...definition,
    bounds: { ...definition.bounds, maxMs: definition.bounds.maxMs * SLOW_PACE_FACTOR },
    worker: (context) => {
      const plan = worker(context);
      return { ...plan, timeoutSeconds: plan.timeoutSeconds * SLOW_PACE_FACTOR };
    },
  };
}
