/**
 * Merging Treewarden's SessionStart/SessionEnd entries into an agent's hook settings, and taking
 * them out again. Pure over parsed JSON. Claude Code (`settings.json`), Codex (`hooks.json`) and
 * Gemini CLI (`settings.json`) share the shape `{"hooks": {"EVENT": [{"matcher"?, "hooks":
 * [{"type": "command", "command": …}]}]}}`; every other key and entry is kept as it was.
 */
export const HOOK_EVENTS = ['SessionStart', 'SessionEnd'] as const;
/** Gemini names each hook; the name also marks the entry as ours. */
export const HOOK_NAME = 'treewarden';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export class SettingsShapeError extends Error {
  override readonly name = 'SettingsShapeError';
}

export interface SettingsEdit {
  readonly doc: JsonObject;
  /** One line per change ("added SessionStart: …"); empty when nothing changed. */
  readonly changes: readonly string[];
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A command is ours when it is the one we install, or an earlier install of ours from another path. */
export function isOurCommand(command: string, ours: string, agent: string): boolean {
  if (command === ours) return true;
  return new RegExp(`(^|[/'"\\s])(treewarden(\\.js)?|cli/dist/main\\.js)['"]?\\s+hook\\s+${agent}$`).test(command);
}

function isOurHook(hook: Json, ours: string, agent: string): boolean {
  return isObject(hook) && typeof hook.command === 'string' && isOurCommand(hook.command, ours, agent);
}

function rootOf(doc: Json): JsonObject {
  if (!isObject(doc)) throw new SettingsShapeError('the top level is not a JSON object');
  return doc;
}

function eventsOf(doc: JsonObject): JsonObject {
  const hooks = doc.hooks;
  if (hooks === undefined) return {};
  if (!isObject(hooks)) throw new SettingsShapeError('"hooks" is not an object');
  return hooks;
}

function groupsOf(events: JsonObject, event: string): Json[] {
  const groups = events[event];
  if (groups === undefined) return [];
  if (!Array.isArray(groups)) throw new SettingsShapeError(`"hooks.${event}" is not an array`);
  return groups;
}

/** The groups without our hooks; a group left with no hooks goes too (it was ours alone). */
function withoutOurs(groups: readonly Json[], ours: string, agent: string): { groups: Json[]; removed: number } {
  let removed = 0;
  const kept: Json[] = [];
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const hooks = group.hooks.filter((hook) => !isOurHook(hook, ours, agent));
    removed += group.hooks.length - hooks.length;
    if (hooks.length > 0 || group.hooks.length === 0) kept.push({ ...group, hooks });
  }
  return { groups: kept, removed };
}

function ourGroup(command: string, named: boolean): JsonObject {
  const hook: JsonObject = { type: 'command', command };
  if (named) hook.name = HOOK_NAME;
  return { hooks: [hook] };
}

function countOurs(groups: readonly Json[], ours: string, agent: string): number {
  return groups.reduce<number>(
    (count, group) =>
      count +
      (isObject(group) && Array.isArray(group.hooks) ? group.hooks.filter((h) => isOurHook(h, ours, agent)).length : 0),
    0,
  );
}

/**
 * Adds our entry per event, once: an event already holding exactly our current entry (and no
 * other of ours) is left alone; earlier ones of ours (another path) are replaced.
 */
export function installHooks(input: Json, agent: string, command: string, named: boolean): SettingsEdit {
  const doc = { ...rootOf(input) };
  const events = { ...eventsOf(doc) };
  const changes: string[] = [];
  for (const event of HOOK_EVENTS) {
    const groups = groupsOf(events, event);
    const exact = groups.filter(
      (g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isObject(h) && h.command === command),
    );
    if (exact.length === 1 && countOurs(groups, command, agent) === 1) continue;
    const { groups: kept, removed } = withoutOurs(groups, command, agent);
    events[event] = [...kept, ourGroup(command, named)];
    changes.push(`${removed > 0 ? 'replaced' : 'added'} ${event} hook: ${command}`);
  }
  if (changes.length === 0) return { doc: rootOf(input), changes };
  return { doc: { ...doc, hooks: events }, changes };
}

/** Removes exactly our entries; an event left empty is removed, and "hooks" when nothing is left in it. */
export function uninstallHooks(input: Json, agent: string, command: string): SettingsEdit {
  const doc = { ...rootOf(input) };
  const events = { ...eventsOf(doc) };
  const changes: string[] = [];
  for (const event of HOOK_EVENTS) {
    const { groups, removed } = withoutOurs(groupsOf(events, event), command, agent);
    if (removed === 0) continue;
    if (groups.length === 0) delete events[event];
    else events[event] = groups;
    changes.push(`removed ${removed} ${event} hook${removed === 1 ? '' : 's'}`);
  }
  if (changes.length === 0) return { doc: rootOf(input), changes };
  if (Object.keys(events).length === 0) delete doc.hooks;
  else doc.hooks = events;
  return { doc, changes };
}

export type { Json, JsonObject };
