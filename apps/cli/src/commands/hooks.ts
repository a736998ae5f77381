/**
 * `treewarden hooks install|uninstall AGENT [--scope user|project] [--dry-run]`: puts Treewarden's
 * SessionStart and SessionEnd hooks into an agent's own settings (or takes exactly them out), so
 * sessions are recorded with the agent's own session id and their leftovers ended when they end.
 * Prints what changed (`--dry-run`: what would). A settings file that is not valid JSON, or not
 * of the hooks shape, is left untouched: exit 2 with the parse error named.
 */
import { parseArgs } from 'node:util';
import { hookAgentNames, hookAgentOf } from '@treewarden/engine';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';
import {
  type HookScope,
  readSettings,
  SettingsReadError,
  settingsPath,
  writeSettingsAtomically,
} from './hooks-files.js';
import { installHooks, SettingsShapeError, uninstallHooks } from './hooks-settings.js';

const USAGE = `treewarden hooks install|uninstall ${hookAgentNames().join('|')} [--scope user|project] [--dry-run]`;
const DRY_VERBS: Readonly<Record<string, string>> = { added: 'add', replaced: 'replace', removed: 'remove' };
const OPTIONS = { scope: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;

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

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  const [action, name, ...extra] = positionals;
  if (action !== 'install' && action !== 'uninstall') throw new UsageError('expected install or uninstall');
  const agent = name === undefined ? null : hookAgentOf(name);
  if (agent === null || extra.length > 0)
    throw new UsageError(
      `expected one agent (${hookAgentNames().join(', ')}), got "${positionals.slice(1).join(' ')}"`,
    );
  const file = settingsPath(agent.name, parseScope(values.scope), process.cwd(), process.env);
  const command = hookCommandLine(agent.name);
  const dryRun = values['dry-run'] === true;
  try {
    const before = readSettings(file);
    const edit =
      action === 'install'
        ? installHooks(before, agent.name, command, agent.name === 'gemini')
        : uninstallHooks(before, agent.name, command);
    if (edit.changes.length === 0) {
      await writeText(
        process.stdout,
        `${file}: nothing to change (${action === 'install' ? 'already installed' : 'none of ours'})\n`,
      );
      return EXIT_OK;
    }
    if (!dryRun) writeSettingsAtomically(file, edit.doc);
    const lines = edit.changes.map((change) =>
      dryRun
        ? `${file}: would ${change.replace(/^(added|replaced|removed)/, (verb: string) => DRY_VERBS[verb] ?? verb)} (dry run: not written)`
        : `${file}: ${change}`,
    );
    await writeText(process.stdout, `${lines.join('\n')}\n`);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof SettingsReadError || error instanceof SettingsShapeError)) throw error;
    const where = error instanceof SettingsShapeError ? `${file}: ${error.message}` : error.message;
    await writeText(process.stderr, `treewarden hooks: ${where}; nothing changed\n`);
    return EXIT_USAGE;
  }
}

export const hooksCommand: CliCommand = {
  summary: "install (or uninstall) Treewarden's session hooks in claude, codex or gemini settings",
  usage: USAGE,
  main,
};
