/**
 * Rules too broad to be evidence. A user rule whose marker every process carries (`PATH`) or
 * whose argv shape matches most processes (`.*`) would make every process an agent's: `orphans
 * --clean --all` would then end innocent processes. Such a file is refused whole, with a message
 * naming the file, the agent and the rule, before any of it is compiled. Checked against the
 * variables every environment has and against argv shapes every machine runs, and, when the
 * caller has one, against the live table: its argv, and its environments (a variable nearly every
 * process here carries, like NODE_EXTRA_CA_CERTS on a machine that sets it globally, is no mark of
 * an agent, whatever a fixed list says).
 */
import type { RulesFile } from './rule-schema.js';

/** Variables (nearly) every process has, or inherits from a login: never an agent's mark. */
export const UNIVERSAL_ENV_KEYS: ReadonlySet<string> = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TERM',
  'PWD',
  'OLDPWD',
  'SHLVL',
  'HOSTNAME',
  'TMPDIR',
  'TZ',
  'MAIL',
  '_',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XDG_RUNTIME_DIR',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'DBUS_SESSION_BUS_ADDRESS',
  'SSH_AUTH_SOCK',
  'SSH_CONNECTION',
  'SSH_CLIENT',
  'SSH_TTY',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'LS_COLORS',
  'COLORTERM',
  'TERM_PROGRAM',
  'NODE_OPTIONS',
  'INVOCATION_ID',
  'JOURNAL_STREAM',
]);

/** Argv of processes any machine runs: a root shape matching most of them is no agent's shape. */
export const COMMON_ARGVS: readonly (readonly string[])[] = [
  ['/sbin/init'],
  ['/lib/systemd/systemd', '--user'],
  ['/usr/lib/systemd/systemd-journald'],
  ['/usr/bin/dbus-daemon', '--session', '--address=systemd:'],
  ['sshd: alice@pts/0'],
  ['-bash'],
  ['bash'],
  ['/bin/zsh', '-l'],
  ['/bin/sh', '-c', 'make test'],
  ['sleep', '60'],
  ['tmux', 'new', '-s', 'work'],
  ['vim', 'notes.txt'],
  ['git', 'status'],
  ['node', 'server.js'],
  ['npm', 'run', 'dev'],
  ['python3', 'manage.py', 'runserver'],
  ['/usr/bin/containerd'],
  ['/usr/lib/firefox/firefox', '-contentproc'],
  ['cron', '-f'],
  ['less', 'README.md'],
];

/** A shape matching more than this share of a set of argv is too broad. */
export const MAX_MATCHED_SHARE = 0.5;
/** The live table counts only when it has at least this many processes (a share of 3 means little). */
export const MIN_LIVE_PROCESSES = 20;

interface Shape {
  readonly argv0?: string;
  readonly argv1?: string;
  readonly script?: string;
  readonly commandLine?: string;
}

function compiledMatcher(shape: Shape): (args: readonly string[]) => boolean {
  const argv0 = shape.argv0 === undefined ? null : new RegExp(shape.argv0);
  const argv1 = shape.argv1 === undefined ? null : new RegExp(shape.argv1);
  const script = shape.script === undefined ? null : new RegExp(shape.script);
  const line = shape.commandLine === undefined ? null : new RegExp(shape.commandLine);
  // The same reading of `script` as match.ts's scriptOf (not imported: rules.ts imports this module).
  return (args) =>
    (argv0 === null || argv0.test(args[0] ?? '')) &&
    (argv1 === null || argv1.test(args[1] ?? '')) &&
    (script === null || script.test(args.slice(1).find((arg) => !arg.startsWith('-')) ?? '')) &&
    (line === null || line.test(args.join(' ')));
}

function describeShape(shape: Shape): string {
  return Object.entries(shape)
    .filter(([key]) => key !== 'evidence')
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`)
    .join(', ');
}

function shapeProblem(shape: Shape, liveArgvs: readonly (readonly string[])[]): string | null {
  const matches = compiledMatcher(shape);
  // Every present pattern matching the empty string: the shape asks nothing of the argv.
  if (matches(['', ''])) return 'matches an empty argv, so it matches every process';
  const common = COMMON_ARGVS.filter(matches).length;
  if (common > COMMON_ARGVS.length * MAX_MATCHED_SHARE)
    return `matches ${common} of ${COMMON_ARGVS.length} ordinary command lines (init, shells, sleep, git, node, …)`;
  if (liveArgvs.length >= MIN_LIVE_PROCESSES) {
    const live = liveArgvs.filter(matches).length;
    if (live > liveArgvs.length * MAX_MATCHED_SHARE) return `matches ${live} of the ${liveArgvs.length} live processes`;
  }
  return null;
}

/** The variables of one live process among those the file's markers name (read by the caller). */
export type LiveVars = ReadonlyMap<string, string>;

type MarkerInput = RulesFile['agents'][number]['markers'][number];

function markerProblem(marker: MarkerInput, liveEnvs: readonly LiveVars[]): string | null {
  if (UNIVERSAL_ENV_KEYS.has(marker.name))
    return `nearly every process has ${marker.name} in its environment; a marker must be a variable the agent puts on its own children (e.g. CLAUDECODE)`;
  if (liveEnvs.length < MIN_LIVE_PROCESSES) return null;
  const value = marker.value === undefined ? null : new RegExp(marker.value);
  const carriers = liveEnvs.filter((vars) => {
    const found = vars.get(marker.name);
    return found !== undefined && (value === null || value.test(found));
  }).length;
  if (carriers <= liveEnvs.length * MAX_MATCHED_SHARE) return null;
  return `${carriers} of the ${liveEnvs.length} live processes here carry ${marker.name}; a marker must be a variable the agent puts on its own children (e.g. CLAUDECODE)`;
}

/** The variable names a file's markers read (what the caller reads from the live environments). */
export function markerNamesOf(file: RulesFile): Set<string> {
  return new Set(file.agents.flatMap((agent) => agent.markers.map((marker) => marker.name)));
}

/**
 * Why this file's rules are too broad to be evidence (empty when they are not): one line per
 * rule, naming the agent and the rule. Role rules only label members, never make one, so they
 * are not checked. `liveEnvs`: the readable live processes' variables among `markerNamesOf(file)`.
 */
export function ruleBreadthProblems(
  file: RulesFile,
  liveArgvs: readonly (readonly string[])[] = [],
  liveEnvs: readonly LiveVars[] = [],
): string[] {
  const problems: string[] = [];
  for (const agent of file.agents) {
    agent.roots.forEach((shape, index) => {
      const why = shapeProblem(shape, liveArgvs);
      if (why !== null)
        problems.push(`agent "${agent.id}" roots[${index}] (${describeShape(shape)}) is too broad: it ${why}`);
    });
    // A daemon or worker shape takes whole trees out of leak judgement: as broad, as bad.
    for (const [list, shapes] of [
      ['daemon.roots', agent.daemon?.roots ?? []],
      ['daemon.workers', agent.daemon?.workers ?? []],
    ] as const)
      shapes.forEach((shape, index) => {
        const why = shapeProblem(shape, liveArgvs);
        if (why !== null)
          problems.push(`agent "${agent.id}" ${list}[${index}] (${describeShape(shape)}) is too broad: it ${why}`);
      });
    agent.markers.forEach((marker, index) => {
      const why = markerProblem(marker, liveEnvs);
      if (why !== null)
        problems.push(`agent "${agent.id}" markers[${index}] (name "${marker.name}") is too broad: ${why}`);
    });
  }
  return problems;
}
