/**
 * `treewarden hooks install|uninstall|status AGENT [--scope user|project] [--dry-run]`: puts
 * Treewarden's SessionStart and SessionEnd hooks into an agent's own settings (or takes exactly
 * them out, or says whether they are there and when they last fired), so sessions are recorded
 * with the agent's own session id and their leftovers ended when they end. Prints what changed
 * (`--dry-run`: what would). A settings file that is not valid JSON, not of the hooks shape, not a
 * regular file, or in a directory other users can write is left untouched: exit 2 with the reason.
 */
import { parseArgs } from 'node:util';
import { type HookAgent, hookAgentNames, hookAgentOf, readSessions, statePaths } from '@treewarden/engine';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';
import { type HookScope, loadSettings, SettingsReadError, settingsPath, updateSettings } from './hooks-files.js';
import {
  countOurHooks,
  type EditOptions,
  installHooks,
  SettingsShapeError,
  toFileText,
  uninstallHooks,
} from './hooks-settings.js';

const USAGE = `treewarden hooks install|uninstall|status ${hookAgentNames().join('|')} [--scope user|project] [--dry-run]`;
const DRY_VERBS: Readonly<Record<string, string>> = { added: 'add', replaced: 'replace', removed: 'remove' };
const OPTIONS = { scope: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;
/** Agents that read their settings as JSON with comments (Gemini CLI and its fork Qwen Code). */
const JSONC_AGENTS: ReadonlySet<string> = new Set(['gemini', 'qwen']);
/** Agents that name each hook (`name`), which also marks the entry as ours. */
const NAMED_AGENTS: ReadonlySet<string> = new Set(['gemini', 'qwen']);
/** Codex 0.169.0 loads hooks.json but runs nothing until the user trusts the hooks. */
const CODEX_TRUST_NOTE =
  'note: Codex runs these hooks only once you trust them: open its /hooks screen and trust them, or start it with --dangerously-bypass-hook-trust';

/** Shell words, single-quoted: agents run a hook's command through a shell. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command the hooks run: this node and this CLI, by absolute path (no PATH lookup at hook time). */
export function hookCommandLine(agent: string): string {
  const script = process.argv[1] ?? 'treewarden';
  return [process.execPath, script, 'hook', agent].map(shellWord).join(' ');
}

function parseScope(raw: string | undefined): HookScope {
  if (raw === undefined || raw === 'user' || raw === 'project') return raw ?? 'user';
  throw new UsageError(`--scope ${JSON.stringify(raw)} is not user or project`);
}

function editOptions(agent: HookAgent): EditOptions {
  return {
    agent: agent.name,
    command: toFileText(hookCommandLine(agent.name)),
    named: NAMED_AGENTS.has(agent.name),
    comments: JSONC_AGENTS.has(agent.name),
  };
}

function edited(action: 'install' | 'uninstall', text: string, options: EditOptions) {
  return action === 'install' ? installHooks(text, options) : uninstallHooks(text, options);
}

/** When the agent's hook last wrote to the state dir (SessionStart, SessionEnd or its clean-up), or null. */
function lastFired(agent: HookAgent): number | null {
  let last: number | null = null;
  for (const session of readSessions(statePaths().root).sessions) {
    if (session.agent !== agent.ruleId || session.hook === undefined) continue;
    const at = Math.max(session.hook.openedAtMs, session.hook.cleanup?.atMs ?? 0, session.endedAtMs ?? 0);
    last = last === null ? at : Math.max(last, at);
  }
  return last;
}

function statusLines(agent: HookAgent, file: string): string[] {
  const loaded = loadSettings(file);
  const counts = countOurHooks(loaded.text, editOptions(agent));
  const installed = Object.entries(counts).map(([event, n]) => `${event} ${n === 0 ? 'missing' : 'installed'}`);
  const fired = lastFired(agent);
  const trusted =
    agent.name === 'codex'
      ? 'trusted: unknown to Treewarden (Codex keeps it; see its /hooks screen)'
      : 'trusted: yes (this agent runs hooks without a trust step)';
  return [
    `${file}: ${loaded.stat === null ? 'no settings file' : installed.join(', ')}`,
    trusted,
    `last fired: ${fired === null ? 'never recorded in the state dir' : new Date(fired).toISOString()}`,
  ];
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  const [action, name, ...extra] = positionals;
  if (action !== 'install' && action !== 'uninstall' && action !== 'status')
    throw new UsageError('expected install, uninstall or status');
  const agent = name === undefined ? null : hookAgentOf(name);
  if (agent === null || extra.length > 0)
    throw new UsageError(
      `expected one agent (${hookAgentNames().join(', ')}), got "${positionals.slice(1).join(' ')}"`,
    );
  const dryRun = values['dry-run'] === true;
  let file = '(settings)';
  try {
    file = settingsPath(agent.name, parseScope(values.scope), process.cwd(), process.env);
    if (action === 'status') {
      await writeText(process.stdout, `${statusLines(agent, file).join('\n')}\n`);
      return EXIT_OK;
    }
    const options = editOptions(agent);
    const changes = dryRun
      ? edited(action, loadSettings(file).text, options).changes
      : (updateSettings(file, (loaded) => {
          const edit = edited(action, loaded.text, options);
          return edit.changes.length === 0 ? null : { text: edit.text, result: edit.changes };
        }) ?? []);
    const notes = action === 'install' && agent.name === 'codex' ? [CODEX_TRUST_NOTE] : [];
    if (changes.length === 0) {
      const why = action === 'install' ? 'already installed' : 'none of ours';
      await writeText(process.stdout, `${[`${file}: nothing to change (${why})`, ...notes].join('\n')}\n`);
      return EXIT_OK;
    }
    const lines = changes.map((change) =>
      dryRun
        ? `${file}: would ${change.replace(/^(added|replaced|removed)/, (verb: string) => DRY_VERBS[verb] ?? verb)} (dry run: not written)`
        : `${file}: ${change}`,
    );
    await writeText(process.stdout, `${[...lines, ...notes].join('\n')}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const where =
      error instanceof SettingsShapeError
        ? `${file}: ${error.message}${error.message.startsWith('not valid JSON') && !JSONC_AGENTS.has(agent.name) ? ` (${agent.name} reads strict JSON: comments are not allowed)` : ''}`
        : error instanceof SettingsReadError
          ? error.message
          : `${file}: ${error instanceof Error ? error.message : String(error)}`;
    await writeText(process.stderr, `treewarden hooks: ${where}; nothing changed\n`);
    return EXIT_USAGE;
  }
}

export const hooksCommand: CliCommand = {
  summary: "install, uninstall or check Treewarden's session hooks in claude, codex, gemini or qwen settings",
  usage: USAGE,
  main,
};
