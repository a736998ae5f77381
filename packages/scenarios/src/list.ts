/** The catalog as the CLI lists it and the app's launcher shows it, availability included. */
import { SCENARIOS, type ScenarioSummary, summarizeScenario } from './catalog.js';
import { unavailableReason } from './execute.js';

export function listScenarios(): ScenarioSummary[] {
  return SCENARIOS.map((definition) => summarizeScenario(definition, unavailableReason(definition)));
}
