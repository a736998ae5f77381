/**
 * One hook event as an agent writes it on the hook's stdin (Claude Code, Codex and Gemini CLI share
 * these fields). Validated with zod; unknown fields are dropped, not refused: agents add fields.
 */
import { z } from 'zod';
import { AGENT_SESSION_ID_PATTERN } from '../sessions/store-schema.js';

export { MAX_HOOK_INPUT_BYTES } from './hook-agents.js';

export const hookEventSchema = z.object({
  session_id: z.string().regex(AGENT_SESSION_ID_PATTERN, 'letters, digits, ".", "_" and "-", at most 128'),
  hook_event_name: z.string().min(1).max(64),
  cwd: z.string().max(4096).optional(),
  transcript_path: z.string().max(4096).optional(),
  reason: z.string().max(128).optional(),
  source: z.string().max(128).optional(),
});

export type HookEvent = z.infer<typeof hookEventSchema>;

/** The event, or an error message of one line that says what was wrong. */
export function parseHookEvent(text: string): HookEvent | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return `stdin is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const parsed = hookEventSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `invalid hook event: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'rejected'}`;
}
