/**
 * Agent rules, compiled: the built-in file plus users' files in `<state dir>/agent-rules/*.json`.
 * A user file that does not parse or validate is reported in `problems` and skipped; the others
 * still load, and so is a file with a rule too broad to be evidence (rule-breadth.ts). A user rule
 * with a built-in agent's id adds to that agent's evidence.
 */
import { closeSync, constants, fstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPrivatePath, openPrivateFile } from '../../state/trust.js';
import builtin from './builtin-rules.json' with { type: 'json' };
import { type LiveVars, markerNamesOf, ruleBreadthProblems } from './rule-breadth.js';
import { type ArgvRole, type RulesFile, rulesFileSchema } from './rule-schema.js';

/** A rules file larger than this is refused unread: rules are a few KiB. */
export const MAX_RULES_FILE_BYTES = 256 * 1024;
/** At most this many user files are read. */
export const MAX_USER_RULE_FILES = 50;
export const AGENT_RULES_DIR = 'agent-rules';

export interface ArgvPattern {
  readonly argv0?: RegExp;
  readonly argv1?: RegExp;
  readonly script?: RegExp;
  readonly commandLine?: RegExp;
}

export interface MarkerRule {
  readonly agent: string;
  readonly name: string;
  /** The user rules file it came from (absent: the built-in rules), named in every find it makes. */
  readonly source?: string;
  readonly value?: RegExp;
  readonly names?: 'session' | 'root-pid';
  /** `self`: the agent carries it on its own process too, so it never disqualifies a root. */
  readonly on: 'started' | 'self';
}

/** Where a stop id is read: group 1 of `pattern` over one argument, or over variable `env`'s value. */
export interface StopIdSource {
  readonly env?: string;
  readonly pattern: RegExp;
}

export interface AgentStopRule {
  readonly binary: string;
  readonly args: readonly string[];
  readonly ids: readonly StopIdSource[];
  readonly timeoutMs: number;
}

/** An agent's session daemon (rule-schema.ts `daemon`), compiled. */
export interface DaemonRule {
  readonly roots: readonly ArgvPattern[];
  readonly workers: readonly ArgvPattern[];
  readonly lingerMs: number;
  /** Group 1 over a worker's argument names its daemon's family (rule-schema.ts `familyKey`). */
  readonly familyKey?: RegExp;
  readonly stop?: AgentStopRule;
}

export interface AgentRule {
  readonly id: string;
  readonly name: string;
  readonly roots: readonly ArgvPattern[];
  readonly markers: readonly MarkerRule[];
  readonly daemon?: DaemonRule;
}

export interface RoleRule extends ArgvPattern {
  readonly role: ArgvRole;
}

export interface AgentRules {
  readonly agents: readonly AgentRule[];
  readonly roles: readonly RoleRule[];
  /** Every marker of every agent, by variable name (one name may serve several agents: CLAUDECODE). */
  readonly markersByName: ReadonlyMap<string, readonly MarkerRule[]>;
}

export interface RulesProblem {
  readonly file: string;
  readonly message: string;
}

export interface LoadedRules {
  readonly rules: AgentRules;
  readonly problems: readonly RulesProblem[];
}

function compileDaemon(input: NonNullable<RulesFile['agents'][number]['daemon']>): DaemonRule {
  const stop = input.stop;
  return {
    roots: input.roots.map(compileShape),
    workers: input.workers.map(compileShape),
    lingerMs: input.lingerSeconds * 1000,
    ...(input.familyKey !== undefined ? { familyKey: new RegExp(input.familyKey) } : {}),
    ...(stop === undefined
      ? {}
      : {
          stop: {
            binary: stop.binary,
            args: stop.args,
            timeoutMs: stop.timeoutMs,
            ids: stop.ids.map((source) =>
              source.env !== undefined
                ? { env: source.env, pattern: new RegExp(source.value as string) }
                : { pattern: new RegExp(source.arg as string) },
            ),
          },
        }),
  };
}

function compileShape(shape: { argv0?: string; argv1?: string; script?: string; commandLine?: string }): ArgvPattern {
  return {
    ...(shape.argv0 !== undefined ? { argv0: new RegExp(shape.argv0) } : {}),
    ...(shape.argv1 !== undefined ? { argv1: new RegExp(shape.argv1) } : {}),
    ...(shape.script !== undefined ? { script: new RegExp(shape.script) } : {}),
    ...(shape.commandLine !== undefined ? { commandLine: new RegExp(shape.commandLine) } : {}),
  };
}

/**
 * Merges validated files into one rule set (later files add to agents of the same id).
 * `sources[i]` names the file `files[i]` came from (absent for the built-in rules).
 */
export function compileRules(files: readonly RulesFile[], sources: readonly (string | undefined)[] = []): AgentRules {
  const agents = new Map<
    string,
    { id: string; name: string; roots: ArgvPattern[]; markers: MarkerRule[]; daemon?: DaemonRule }
  >();
  const roles: RoleRule[] = [];
  for (const [index, file] of files.entries()) {
    const source = sources[index];
    for (const input of file.agents) {
      const agent = agents.get(input.id) ?? { id: input.id, name: input.name, roots: [], markers: [] };
      agent.roots.push(...input.roots.map(compileShape));
      agent.markers.push(
        ...input.markers.map((marker) => ({
          agent: input.id,
          name: marker.name,
          on: marker.on ?? 'started',
          ...(source !== undefined ? { source } : {}),
          ...(marker.value !== undefined ? { value: new RegExp(marker.value) } : {}),
          ...(marker.names !== undefined ? { names: marker.names } : {}),
        })),
      );
      // A later file's daemon replaces the earlier one whole (its shapes, linger and stop go together).
      if (input.daemon !== undefined) agent.daemon = compileDaemon(input.daemon);
      agents.set(input.id, agent);
    }
    for (const role of file.roles ?? []) roles.push({ role: role.role, ...compileShape(role) });
  }
  const markersByName = new Map<string, MarkerRule[]>();
  for (const agent of agents.values()) {
    for (const marker of agent.markers)
      markersByName.set(marker.name, [...(markersByName.get(marker.name) ?? []), marker]);
  }
  return { agents: [...agents.values()], roles, markersByName };
}

/** Validates one file's text; throws an Error whose message says what is wrong and where. */
export function parseRulesText(text: string): RulesFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = rulesFileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`invalid rules: ${first?.path.join('.') || '(top)'}: ${first?.message ?? 'rejected'}`);
  }
  return parsed.data;
}

export function builtinRulesFile(): RulesFile {
  return parseRulesText(JSON.stringify(builtin));
}

/** A user rules file, read only when it is a private regular file of ours (state/trust.ts). */
function readRulesFile(file: string): string {
  const fd = openPrivateFile(file, constants.O_RDONLY);
  if (fd === null) throw new Error('gone while reading');
  try {
    if (fstatSync(fd).size > MAX_RULES_FILE_BYTES) throw new Error(`larger than ${MAX_RULES_FILE_BYTES} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** What the breadth check (rule-breadth.ts) may compare user rules against beyond its built-in lists. */
export interface LoadRulesOptions {
  /** The live table's argv; called only when there are user files to check. */
  readonly liveArgvs?: () => readonly (readonly string[])[];
  /** The readable live processes' variables among `names`; called only when there are user files. */
  readonly liveEnvs?: (names: ReadonlySet<string>) => readonly LiveVars[];
}

interface UserFile {
  readonly path: string;
  readonly rules: RulesFile;
}

function readUserFiles(dir: string, problems: RulesProblem[], options: LoadRulesOptions): UserFile[] {
  let names: string[];
  try {
    // Rules decide what counts as agent evidence: a directory another user could write is not read.
    if (!checkPrivatePath(dir, 'directory')) return []; // No user rules: nothing to add.
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    problems.push({ file: dir, message: `skipped: ${error instanceof Error ? error.message : String(error)}` });
    return [];
  }
  if (names.length > MAX_USER_RULE_FILES) {
    problems.push({ file: dir, message: `${names.length} files; only the first ${MAX_USER_RULE_FILES} are read` });
    names = names.slice(0, MAX_USER_RULE_FILES);
  }
  const files: UserFile[] = [];
  const liveArgvs = names.length > 0 ? (options.liveArgvs?.() ?? []) : [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      const parsed = parseRulesText(readRulesFile(file));
      const names = markerNamesOf(parsed);
      const liveEnvs = names.size > 0 ? (options.liveEnvs?.(names) ?? []) : [];
      const tooBroad = ruleBreadthProblems(parsed, liveArgvs, liveEnvs);
      // The whole file goes: one rule that makes every process an agent's puts the rest in doubt.
      if (tooBroad.length > 0) throw new Error(tooBroad.join('; '));
      files.push({ path: file, rules: parsed });
    } catch (error) {
      problems.push({ file, message: `skipped: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  return files;
}

/** The built-in rules plus every valid user file under `<stateRoot>/agent-rules/`. */
export function loadAgentRules(stateRoot: string, options: LoadRulesOptions = {}): LoadedRules {
  const problems: RulesProblem[] = [];
  const user = readUserFiles(join(stateRoot, AGENT_RULES_DIR), problems, options);
  const files = [builtinRulesFile(), ...user.map((file) => file.rules)];
  return { rules: compileRules(files, [undefined, ...user.map((file) => file.path)]), problems };
}
