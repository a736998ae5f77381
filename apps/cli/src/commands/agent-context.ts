/** The agent-session context every agent-aware command builds: state dir, rules, marker reader. */
import { loadAgentRules, markerReaderFor, type ObserveContext, readProcTable, statePaths } from '@treewarden/engine';

/** The live table's argv, for the rules' breadth check (Linux; elsewhere the built-in lists alone). */
function liveArgvs(): (readonly string[])[] {
  if (process.platform !== 'linux') return [];
  return [...readProcTable().entries.values()].filter((entry) => entry.args.length > 0).map((entry) => entry.args);
}

export function agentContext(): ObserveContext & { readonly ledgerFile: string } {
  const paths = statePaths();
  const loaded = loadAgentRules(paths.root, { liveArgvs });
  return {
    stateRoot: paths.root,
    ledgerFile: paths.ledgerFile,
    rules: loaded.rules,
    rulesProblems: loaded.problems,
    readMarkers: markerReaderFor(loaded.rules),
  };
}
