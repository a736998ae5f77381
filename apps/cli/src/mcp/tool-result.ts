/**
 * Tool results: a success carries structured content (checked against the tool's output schema
 * by the SDK) and the same JSON as text for clients without structured output; a failure is an
 * MCP tool error (`isError`) whose text is the reason. No handler throws out of `guarded`: a bad
 * call is answered, never a crash.
 */
import { PortRangeError, RunSpecError } from '@treewarden/engine';

/** A refusal whose message is meant for the agent as is (what was wrong, how to fix the call). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function success(structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** An error result; `details` (e.g. a failed start's classification) rides along as structured content. */
export function failure(reason: string, details?: Record<string, unknown>): ToolResult {
  const text = details === undefined ? reason : `${reason}\n${JSON.stringify(details)}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    ...(details === undefined ? {} : { structuredContent: details }),
  };
}

/** Runs a handler; every error becomes a tool error with its reason. */
export async function guarded(handler: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof ToolError || error instanceof RunSpecError || error instanceof PortRangeError)
      return failure(error.message);
    // Unexpected, yet still the caller's answer rather than a dead server.
    return failure(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
