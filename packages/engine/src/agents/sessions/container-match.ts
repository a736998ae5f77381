/**
 * Who created a container, judged from what was alive when the engine announced its `create`:
 * the engine's CLIs (`docker run|create`, `docker compose up`, `podman …`) and their ancestry.
 * Pure functions over what the caller read; the reads are in container-attribution.ts.
 */
import type { ContainerEvidence } from '../../containers/container-evidence.js';
import { isInsideDirectory } from '../../containers/container-evidence.js';
import type { ContainerInfo } from '../../containers/engine-api.js';
import type { ProcessIdentity } from '../../table/types.js';

const CLI_NAMES = new Set(['docker', 'podman', 'nerdctl', 'docker-compose', 'podman-compose']);
/** Global options that take a value as the next word (`docker -H unix:///x run …`). */
const VALUED_GLOBALS = new Set([
  '-H',
  '--host',
  '-c',
  '--context',
  '--config',
  '-l',
  '--log-level',
  '--url',
  '--connection',
]);
export const COMPOSE_WORKING_DIR_LABEL = 'com.docker.compose.project.working_dir';
const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';

export type CliVerb = 'run' | 'create' | 'compose-up';

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The words after argv0 with global options (and their values) skipped. */
function commandWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 1; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (words.length === 0 && arg.startsWith('-')) {
      if (VALUED_GLOBALS.has(arg)) i += 1;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** What an engine CLI's argv does to containers; null when it creates none (ps, logs, stop, …). */
export function engineCliVerb(args: readonly string[]): CliVerb | null {
  const name = basename(args[0] ?? '');
  if (!CLI_NAMES.has(name)) return null;
  const words = commandWords(args);
  if (name.endsWith('-compose')) return words.includes('up') || words.includes('run') ? 'compose-up' : null;
  const [first, second] = words;
  const verb = first === 'container' ? second : first;
  if (verb === 'run') return 'run';
  if (verb === 'create') return 'create';
  if (first === 'compose' && (words.includes('up') || words.includes('run'))) return 'compose-up';
  return null;
}

/** `--name X` or `--name=X` of a run/create argv. */
function nameOption(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--name') return args[i + 1] ?? null;
    if (arg.startsWith('--name=')) return arg.slice('--name='.length);
  }
  return null;
}

/** Attached stdin (`-i`, `-it`, `--interactive`): an MCP server's `docker run -i --rm IMAGE` shape. */
export function isInteractiveRun(args: readonly string[]): boolean {
  return args.some((arg) => arg === '--interactive' || /^-[a-zA-Z]*i[a-zA-Z]*$/.test(arg));
}

export interface CliProcess extends ProcessIdentity {
  readonly args: readonly string[];
  readonly cwd: string | null;
}

/**
 * How strongly a live CLI's argv names the created container: 2 by its `--name`, 1 by its image
 * or its compose project, 0 not at all. The create event's attributes carry name, image, labels.
 */
export function cliMatchScore(cli: CliProcess, attributes: Readonly<Record<string, string>>): number {
  const verb = engineCliVerb(cli.args);
  if (verb === null) return 0;
  if (verb === 'compose-up') {
    const dir = attributes[COMPOSE_WORKING_DIR_LABEL];
    const project = attributes[COMPOSE_PROJECT_LABEL];
    if (dir !== undefined && cli.cwd !== null && dir === cli.cwd) return 1;
    return project !== undefined && cli.args.includes(project) ? 1 : 0;
  }
  const name = nameOption(cli.args);
  if (name !== null && name === attributes.name) return 2;
  // The image is a word of its own after the options; a name given and different means another container.
  if (name !== null) return 0;
  const image = attributes.image;
  return image !== undefined && image !== '' && cli.args.includes(image) ? 1 : 0;
}

/** The CLIs that best explain a create: those with the highest non-zero score. */
export function bestCliMatches<T extends CliProcess>(
  clis: readonly T[],
  attributes: Readonly<Record<string, string>>,
): T[] {
  const scored = clis.map((cli) => ({ cli, score: cliMatchScore(cli, attributes) })).filter((s) => s.score > 0);
  const top = Math.max(0, ...scored.map((s) => s.score));
  return scored.filter((s) => s.score === top).map((s) => s.cli);
}

export interface SessionDirectory {
  readonly cwd: string | null;
  readonly startedAtMs: number;
}

/**
 * Weak evidence from the container itself: its compose working dir is the session's directory, or
 * it bind-mounts something inside it. Only containers created while the session lived count (a
 * project's long-running database predates the session and is nobody's leftover).
 */
export function weakContainerEvidence(
  container: ContainerInfo,
  session: SessionDirectory,
  endedAtMs: number | null,
): ContainerEvidence[] {
  const cwd = session.cwd;
  if (cwd === null || cwd === '/' || cwd === '') return [];
  if (container.createdAtMs < session.startedAtMs - 1000) return [];
  if (endedAtMs !== null && container.createdAtMs > endedAtMs) return [];
  const evidence: ContainerEvidence[] = [];
  const dir = container.labels[COMPOSE_WORKING_DIR_LABEL];
  if (dir !== undefined && dir === cwd)
    evidence.push({
      kind: 'compose-working-dir',
      detail: `compose project working dir ${dir} is the session's directory`,
    });
  const bind = container.bindSources.find((source) => isInsideDirectory(source, cwd));
  if (bind !== undefined)
    evidence.push({ kind: 'bind-mount', detail: `bind-mounts ${bind} from the session's directory` });
  return evidence;
}
