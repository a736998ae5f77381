/**
 * A hook wrapped in a command wrapper (`timeout 5 treewarden hook …`) must not record the wrapper
 * as the session's root: over a real `timeout` process, the agent stand-in is its nearest
 * ancestor that is neither a shell nor a wrapper (here, this test's own process).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pollUntil, useProcessTracker } from '../../../../test-support/index.js';
import { findHookAgent } from '../../src/agents/hooks/hook-ancestry.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { makeTempDir } from '../helpers/index.js';

/** Bound on the wrapper having exec'd (a fork and an exec, under load). */
const EXEC_WAIT_MS = 10_000;
const WRAPPED_SECONDS = '60';

const tracker = useProcessTracker();

describe('the hook ancestry', () => {
  it('never picks a command wrapper such as timeout as the agent', async () => {
    const { rules } = loadAgentRules(makeTempDir());
    const wrapper = spawn('timeout', [WRAPPED_SECONDS, 'sleep', WRAPPED_SECONDS], { stdio: 'ignore', detached: true });
    const pid = tracker.trackChild(wrapper, { detached: true });
    await pollUntil(() => readProcEntry(pid)?.args[0] === 'timeout', {
      description: 'timeout to be running',
      deadlineMs: EXEC_WAIT_MS,
    });
    const ancestry = findHookAgent('claude-code', rules, pid);
    expect(ancestry.chain[0]?.args[0]).toBe('timeout');
    expect(ancestry.matchedBy).toBe('parent');
    expect(ancestry.agent?.pid).toBe(process.pid);
  });
});
