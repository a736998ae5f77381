/** The agent-session context every agent-aware command builds: state dir, rules, marker reader. */
import { loadAgentRules, markerReaderFor, type ObserveContext, statePaths } from '@treewarden/engine';

export function agentContext(): ObserveContext & { readonly ledgerFile: string } {
  const paths = statePaths();
  const loaded = loadAgentRules(paths.root);
  return {
    stateRoot: paths.root,
    ledgerFile: paths.ledgerFile,
    rules: loaded.rules,
    rulesProblems: loaded.problems,
    readMarkers: markerReaderFor(loaded.rules),
  };
}
