/**
 * Workers whose output is the problem: a flood that would fill memory or deadlock a pipe, and
 * bytes that are not valid UTF-8. And fake agents whose stderr says why they stopped.
 */
import { reportedCheck, textCheck } from '../checks.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

/** Big enough to show a flood (many pipe buffers, far past any sane in-memory capture). */
const FLOOD_BYTES = 8 * 1024 * 1024;
const UTF8_BYTES = 256 * 1024;
/** The captured tail is bounded (run/output-tail.ts keeps 64 KiB); allow decoding slack. */
const MAX_TAIL_CHARS = 128 * 1024;
const OUTPUT_TIMEOUT_S = 20;
const NAIVE_FLOOD_TIMEOUT_S = 3;
const OUTPUT_BOUNDS = { maxProcesses: 4, maxMs: 45_000 } as const;
const AGENT_TIMEOUT_S = 10;
const AGENT_BOUNDS = { maxProcesses: 6, maxMs: 30_000 } as const;

function boundedTailCheck(evidence: ScenarioEvidence): ScenarioCheck {
  const length = evidence.outcome.stdoutTail.length;
  return {
    name: 'captured output stayed bounded',
    ok: length > 0 && length <= MAX_TAIL_CHARS,
    detail: `stdout tail holds ${length} chars; the worker had ${FLOOD_BYTES} bytes to write`,
  };
}

export const outputFlood: ScenarioDefinition = {
  name: 'output-flood',
  title: 'An output flood (8 MiB on stdout)',
  explanation:
    'The worker writes 8 MiB to stdout as fast as the pipe takes it. A supervisor that does not read stops the worker dead on a full pipe (deadlock); one that keeps everything grows without bound.',
  naiveFailure:
    'A tool that never reads the pipe blocks the worker once 64 KiB are buffered: it hangs until its timeout, which then reports a timeout for a job that takes a second. One that keeps everything grows without bound.',
  treewardenFix:
    'Drains both pipes continuously and keeps only a bounded tail of each, decoded as it streams, so memory stays flat and the worker finishes.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: OUTPUT_BOUNDS,
  naive: 'direct-child',
  naiveReadsOutput: false,
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('output-flood.mjs'), String(FLOOD_BYTES)],
    // The naive run is stuck on a full pipe from the first 64 KiB on: no need to wait long.
    timeoutSeconds: ctx.mode === 'naive' ? NAIVE_FLOOD_TIMEOUT_S : OUTPUT_TIMEOUT_S,
  }),
  check: (evidence) => [
    boundedTailCheck(evidence),
    textCheck('flood finished', evidence.outcome.stderrTail, /wrote \d+ bytes/),
  ],
};

export const invalidUtf8: ScenarioDefinition = {
  name: 'invalid-utf8',
  title: 'Output that is not valid UTF-8',
  explanation:
    'The worker prints lines where valid multibyte characters sit next to a lone continuation byte, a truncated sequence and an overlong encoding.',
  naiveFailure:
    'A strict decoder throws and the whole output is lost; decoding each chunk separately also breaks valid characters that straddle a chunk boundary.',
  treewardenFix:
    'Decodes with a streaming decoder that joins characters split across chunks and replaces only the invalid bytes with U+FFFD; the run is classified from the decoded text.',
  expected: { classification: 'ok', nothingSurvives: true },
  bounds: OUTPUT_BOUNDS,
  naive: 'direct-child',
  worker: (ctx) => ({
    command: ctx.node,
    args: [ctx.fixture('output-flood.mjs'), String(UTF8_BYTES), 'invalid-utf8'],
    timeoutSeconds: OUTPUT_TIMEOUT_S,
  }),
  check: (evidence) => [
    textCheck('invalid bytes replaced', evidence.outcome.stdoutTail, /\uFFFD/),
    textCheck('valid characters kept', evidence.outcome.stdoutTail, /héllo → \uFFFD.* wörld ✓/),
  ],
};

function fakeAgent(
  mode: 'usage-limit' | 'auth-failure' | 'cancelled',
  classification: 'usage_limit' | 'auth_failure' | 'cancelled',
  title: string,
  stderrPattern: RegExp,
): ScenarioDefinition {
  return {
    name: `agent-${mode}`,
    title,
    explanation: `A fake coding agent starts a helper server in its own session (as agents start MCP servers), prints some progress, then reports on stderr that it stopped (${mode.replace('-', ' ')}) and exits non-zero, leaving the helper running.`,
    naiveFailure:
      'Reports a generic error (exit code only), so a caller retries at once into the same wall; and the helper the agent left behind keeps running.',
    treewardenFix: `Classifies the run from its stderr as ${classification}, so the caller can wait, re-authenticate or stop, and ends the helper the agent left behind as a leftover.`,
    expected: { classification, nothingSurvives: true },
    bounds: AGENT_BOUNDS,
    naive: 'tree-walk',
    worker: (ctx) => ({
      command: ctx.node,
      args: [ctx.fixture('fake-agent.mjs'), mode],
      timeoutSeconds: AGENT_TIMEOUT_S,
    }),
    check: (evidence) => [
      reportedCheck(evidence, 'agent'),
      textCheck('stderr says why', evidence.outcome.stderrTail, stderrPattern),
    ],
  };
}

export const agentUsageLimit = fakeAgent(
  'usage-limit',
  'usage_limit',
  'A fake agent hits its usage limit',
  /usage limit reached/,
);
export const agentAuthFailure = fakeAgent(
  'auth-failure',
  'auth_failure',
  'A fake agent fails to authenticate',
  /Invalid API key/,
);
export const agentCancelled = fakeAgent('cancelled', 'cancelled', 'A fake agent is cancelled', /cancelled by user/);
