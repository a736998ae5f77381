/** The agent-session context every agent-aware command builds: state dir, rules, marker reader. */
import {
  createMarkerReader,
  type LiveVars,
  loadAgentRules,
  markerReaderFor,
  type ObserveContext,
  type ProcessTable,
  readProcTable,
  statePaths,
} from '@treewarden/engine';

/** One read of the live table for both breadth checks, taken only when there are user rule files. */
function lazyTable(): () => ProcessTable | null {
  let table: ProcessTable | null | undefined;
  return () => {
    if (table === undefined) table = process.platform === 'linux' ? readProcTable() : null;
    return table;
  };
}

/** The live table's argv and our processes' environments, for the rules' breadth check (Linux). */
function breadthInputs() {
  const table = lazyTable();
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const liveArgvs = (): (readonly string[])[] =>
    [...(table()?.entries.values() ?? [])].filter((entry) => entry.args.length > 0).map((entry) => entry.args);
  const liveEnvs = (names: ReadonlySet<string>): LiveVars[] => {
    const read = createMarkerReader(names);
    // Only environments we can read (our own processes) count: another user's would read as none.
    return [...(table()?.entries.values() ?? [])]
      .filter((entry) => entry.pid > 1 && (uid === undefined || entry.uid === uid))
      .flatMap((entry) => {
        const vars = read(entry);
        return vars === null ? [] : [vars];
      });
  };
  return { liveArgvs, liveEnvs };
}

export function agentContext(): ObserveContext & { readonly ledgerFile: string } {
  const paths = statePaths();
  const loaded = loadAgentRules(paths.root, breadthInputs());
  return {
    stateRoot: paths.root,
    ledgerFile: paths.ledgerFile,
    rules: loaded.rules,
    rulesProblems: loaded.problems,
    readMarkers: markerReaderFor(loaded.rules),
  };
}
