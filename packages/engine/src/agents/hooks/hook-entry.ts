/**
 * The engine's `@treewarden/engine/hooks` entry: only what `treewarden hook` needs, so the hook
 * loads a few modules instead of the whole engine and returns well within agents' hook budgets.
 */

export { statePaths } from '../../state/state-dir.js';
export { isStateDirError } from '../../state/trust.js';
export { loadAgentRules } from '../rules/rules.js';
export { type HookResult, handleHookEvent } from './handle-hook.js';
export { hookAgentNames, hookAgentOf } from './hook-agents.js';
export { MAX_HOOK_INPUT_BYTES, parseHookEvent } from './hook-event.js';
