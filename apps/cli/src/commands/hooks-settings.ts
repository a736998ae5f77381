/**
 * Adding Treewarden's SessionStart/SessionEnd entries to an agent's hook settings, and taking them
 * out again, as text edits spliced into the file's own bytes: everything else (big integers,
 * `1e400`, `-0`, duplicate keys, key order, comments, invalid UTF-8) stays byte for byte. The text
 * is the file's bytes read as latin1 (one char per byte), so offsets are byte offsets and bytes
 * that are not UTF-8 pass through untouched. Claude Code (`settings.json`), Codex (`hooks.json`),
 * Gemini CLI and Qwen Code (`settings.json`) share the shape `{"hooks": {"EVENT": [{"matcher"?,
 * "hooks": [{"type": "command", "command": …}]}]}}`.
 */
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  format,
  type JSONPath,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';

export const HOOK_EVENTS = ['SessionStart', 'SessionEnd'] as const;
/** Gemini and Qwen name each hook; the name also marks the entry as ours. */
export const HOOK_NAME = 'treewarden';

export class SettingsShapeError extends Error {
  override readonly name = 'SettingsShapeError';
}

export interface SettingsEdit {
  /** The new file text (latin1-encoded bytes, like the input). */
  readonly text: string;
  /** One line per change ("added SessionStart: …"); empty when nothing changed. */
  readonly changes: readonly string[];
}

export interface EditOptions {
  readonly agent: string;
  /** The command as it is written in the file (UTF-8 bytes as latin1 chars; see toFileText). */
  readonly command: string;
  readonly named: boolean;
  /** Gemini and Qwen read settings with comments; Claude and Codex read strict JSON. */
  readonly comments: boolean;
}

/** A string as the latin1 chars of its UTF-8 bytes: how it appears in the file's text. */
export function toFileText(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

function fromFileText(value: string): string {
  return Buffer.from(value, 'latin1').toString('utf8');
}

/** The node (an executable path) before `hook`, as hookCommandLine writes it: plain or single-quoted words. */
function shellWords(command: string): string[] | null {
  const words: string[] = [];
  const pattern = /\s*(?:'((?:[^']|'\\'')*)'|([A-Za-z0-9_@%+=:,./-]+))(?=\s|$)/gy;
  let match = pattern.exec(command);
  while (match !== null) {
    words.push(match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : (match[2] ?? ''));
    if (pattern.lastIndex >= command.length) return words;
    match = pattern.exec(command);
  }
  return command.trim() === '' ? words : null;
}

const OUR_SCRIPT = /(^|\/)(treewarden(\.js)?|cli\/dist\/main\.js)$/;

/**
 * A command is ours when it is exactly the one we install, or exactly the shape an install of ours
 * writes from another path (`[NODE] SCRIPT hook AGENT`, SCRIPT being treewarden or the CLI's
 * main.js). Anything else is the user's, even when it ends in "treewarden hook claude".
 */
export function isOurCommand(command: string, ours: string, agent: string): boolean {
  if (command === ours) return true;
  const words = shellWords(command);
  if (words === null || words.length < 3 || words.length > 4) return false;
  const [script, verb, name] = words.slice(-3);
  if (verb !== 'hook' || name !== agent || script === undefined || !OUR_SCRIPT.test(script)) return false;
  return words.length === 3 || /(^|\/)node[0-9.]*$/.test(words[0] ?? '');
}

function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  const insertSpaces = !indent.startsWith('\t');
  return { insertSpaces, tabSize: insertSpaces ? indent.length : 1, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function parse(text: string, comments: boolean): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: !comments, allowTrailingComma: comments });
  const first = errors[0];
  if (first !== undefined || root === undefined) {
    const what = first === undefined ? 'empty' : `${printParseErrorCode(first.error)} at byte ${first.offset}`;
    throw new SettingsShapeError(`not valid JSON${comments ? ' (comments allowed)' : ''}: ${what}`);
  }
  if (root.type !== 'object') throw new SettingsShapeError('the top level is not a JSON object');
  return root;
}

function propertyValue(node: Node, key: string): Node | undefined {
  return node.type === 'object' ? findNodeAtLocation(node, [key]) : undefined;
}

function groupsNode(root: Node, event: string): Node | undefined {
  const hooks = propertyValue(root, 'hooks');
  if (hooks === undefined) return undefined;
  if (hooks.type !== 'object') throw new SettingsShapeError('"hooks" is not an object');
  const groups = propertyValue(hooks, event);
  if (groups !== undefined && groups.type !== 'array') throw new SettingsShapeError(`"hooks.${event}" is not an array`);
  return groups;
}

interface HookRef {
  readonly group: number;
  readonly hook: number;
  /** The group's number of hooks: a group of ours alone goes with its last hook. */
  readonly groupSize: number;
  readonly command: string;
}

function hooksIn(root: Node, event: string): HookRef[] {
  const refs: HookRef[] = [];
  (groupsNode(root, event)?.children ?? []).forEach((group, gi) => {
    const list = propertyValue(group, 'hooks');
    if (list?.type !== 'array') return;
    const hooks = list.children ?? [];
    hooks.forEach((hook, hi) => {
      const command = propertyValue(hook, 'command');
      if (command?.type === 'string' && typeof command.value === 'string')
        refs.push({ group: gi, hook: hi, groupSize: hooks.length, command: command.value });
    });
  });
  return refs;
}

/**
 * One edit, spliced in without reformatting anything of the user's: the inserted JSON alone is
 * then laid out (format edits that fall outside it are dropped, so no user byte moves).
 */
function edit(text: string, path: JSONPath, value: unknown, insert = false): string {
  const edits = modify(text, path, value, { isArrayInsertion: insert });
  let out = applyEdits(text, edits);
  const added = edits.find((e) => e.content.length > 0);
  if (added === undefined || edits.length !== 1) return out;
  const start = added.offset;
  const end = start + added.content.length;
  const layout = format(out, { offset: start, length: added.content.length }, formatting(text)).filter(
    (e) => e.offset > start && e.offset + e.length < end,
  );
  out = applyEdits(out, layout);
  return out;
}

/**
 * Cuts one array element or object property (the value node at `path`) out of the text with the
 * separator on one side only, exactly undoing what an insertion of ours added; nothing else moves.
 */
function cut(text: string, root: Node, path: JSONPath): string {
  const value = findNodeAtLocation(root, path);
  if (value === undefined) return text;
  const item = value.parent?.type === 'property' ? value.parent : value;
  const siblings = item.parent?.children ?? [item];
  const index = siblings.indexOf(item);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const itemEnd = item.offset + item.length;
  if (previous !== undefined) return text.slice(0, previous.offset + previous.length) + text.slice(itemEnd);
  if (next !== undefined) return text.slice(0, item.offset) + text.slice(next.offset);
  return text.slice(0, item.offset) + text.slice(itemEnd);
}

/** Removes our hooks of `event` one at a time (last first, re-parsed each time); returns the count. */
function removeOurs(start: string, event: string, options: EditOptions): { text: string; removed: number } {
  let text = start;
  let removed = 0;
  for (;;) {
    const root = parse(text, options.comments);
    const ours = hooksIn(root, event).filter((ref) =>
      isOurCommand(fromFileText(ref.command), fromFileText(options.command), options.agent),
    );
    const last = ours.at(-1);
    if (last === undefined) return { text, removed };
    const sameGroup = ours.filter((ref) => ref.group === last.group).length;
    const wholeGroup = sameGroup === last.groupSize;
    text = wholeGroup
      ? cut(text, root, ['hooks', event, last.group])
      : cut(text, root, ['hooks', event, last.group, 'hooks', last.hook]);
    removed += wholeGroup ? sameGroup : 1;
  }
}

function ourGroup(options: EditOptions): Record<string, unknown> {
  const hook: Record<string, string> = { type: 'command', command: options.command };
  if (options.named) hook.name = HOOK_NAME;
  return { hooks: [hook] };
}

function startText(text: string): string {
  return text.trim() === '' ? '{}\n' : text;
}

/**
 * Adds our entry per event, once: an event already holding exactly our current entry (and no
 * other of ours) is left alone; earlier ones of ours (another path) are replaced.
 */
export function installHooks(input: string, options: EditOptions): SettingsEdit {
  let text = startText(input);
  const changes: string[] = [];
  for (const event of HOOK_EVENTS) {
    const refs = hooksIn(parse(text, options.comments), event);
    const exact = refs.filter((ref) => ref.command === options.command).length;
    const ours = refs.filter((ref) =>
      isOurCommand(fromFileText(ref.command), fromFileText(options.command), options.agent),
    ).length;
    if (exact === 1 && ours === 1) continue;
    const stripped = removeOurs(text, event, options);
    text = stripped.text;
    const root = parse(text, options.comments);
    text =
      groupsNode(root, event) === undefined
        ? edit(text, ['hooks', event], [ourGroup(options)])
        : edit(text, ['hooks', event, -1], ourGroup(options), true);
    changes.push(`${stripped.removed > 0 ? 'replaced' : 'added'} ${event} hook: ${fromFileText(options.command)}`);
  }
  if (changes.length === 0) return { text: input, changes };
  // A new file is ours alone: lay it all out.
  if (input.trim() === '') text = applyEdits(text, format(text, undefined, formatting('')));
  return { text, changes };
}

/** Removes exactly our entries; an event left empty is removed, and "hooks" when nothing is left in it. */
export function uninstallHooks(input: string, options: EditOptions): SettingsEdit {
  let text = startText(input);
  const changes: string[] = [];
  for (const event of HOOK_EVENTS) {
    const stripped = removeOurs(text, event, options);
    if (stripped.removed === 0) continue;
    text = stripped.text;
    const root = parse(text, options.comments);
    if ((groupsNode(root, event)?.children ?? []).length === 0) text = cut(text, root, ['hooks', event]);
    const after = parse(text, options.comments);
    const hooks = propertyValue(after, 'hooks');
    if (hooks?.type === 'object' && (hooks.children ?? []).length === 0) text = cut(text, after, ['hooks']);
    changes.push(`removed ${stripped.removed} ${event} hook${stripped.removed === 1 ? '' : 's'}`);
  }
  return changes.length === 0 ? { text: input, changes } : { text, changes };
}

/** How many of our entries each event holds (for `hooks status`). */
export function countOurHooks(input: string, options: EditOptions): Record<string, number> {
  const root = parse(startText(input), options.comments);
  const counts: Record<string, number> = {};
  for (const event of HOOK_EVENTS)
    counts[event] = hooksIn(root, event).filter((ref) =>
      isOurCommand(fromFileText(ref.command), fromFileText(options.command), options.agent),
    ).length;
  return counts;
}
