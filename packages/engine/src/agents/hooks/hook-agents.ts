/**
 * The agents whose own session hooks Treewarden can use: the name on the command line, the agent
 * rule it maps to (builtin-rules.json), and the environment variable that carries the hook's
 * `session_id` on the agent's children (null where the agent puts none there: the reaper then
 * has no id to follow, and only the session's end is recorded).
 */
/** A hook event is a few hundred bytes; more than this is not an event (and is not buffered whole). */
export const MAX_HOOK_INPUT_BYTES = 256 * 1024;

export interface HookAgent {
  /** As typed: `treewarden hook claude`. */
  readonly name: string;
  /** The agent rule's id (`claude-code`), which is also the store record's agent. */
  readonly ruleId: string;
  readonly envKey: string | null;
}

export const HOOK_AGENTS = {
  // CLAUDE_CODE_SESSION_ID: Bash-tool shells since 2.1.132, stdio MCP servers since 2.1.154 (CHANGELOG).
  claude: { name: 'claude', ruleId: 'claude-code', envKey: 'CLAUDE_CODE_SESSION_ID' },
  // CODEX_THREAD_ID: exported into Codex's shells; the thread id is the hooks' session_id.
  codex: { name: 'codex', ruleId: 'codex', envKey: 'CODEX_THREAD_ID' },
  // Gemini CLI marks its children with GEMINI_CLI=1 only: no session id to follow.
  gemini: { name: 'gemini', ruleId: 'gemini', envKey: null },
  // Qwen Code (0.24.4, read in its npm package): Gemini-style hooks in ~/.qwen/settings.json, and
  // QWEN_CODE_SESSION_ID = the session id, set in its own env and so inherited by its children.
  qwen: { name: 'qwen', ruleId: 'qwen-code', envKey: 'QWEN_CODE_SESSION_ID' },
} as const satisfies Record<string, HookAgent>;

export type HookAgentName = keyof typeof HOOK_AGENTS;

export function hookAgentOf(name: string): HookAgent | null {
  return Object.hasOwn(HOOK_AGENTS, name) ? HOOK_AGENTS[name as HookAgentName] : null;
}

export function hookAgentNames(): string[] {
  return Object.keys(HOOK_AGENTS);
}

/** The store record of an agent's session: one per session id, reopened on resume. */
export function hookRecordId(agent: HookAgent, sessionId: string): string {
  return `${agent.ruleId}-${sessionId}`;
}

export function sessionKeyOf(agent: HookAgent, sessionId: string): string {
  return `${agent.ruleId}:session:${sessionId}`;
}
