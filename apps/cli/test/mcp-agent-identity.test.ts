/**
 * Which agent session an MCP server serves: from the markers the agent put in its environment, or
 * (when none reached it, as with Codex's variable whitelist) from its parent's argv, read from a
 * real process shaped like the agent's launcher.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir, startTimeOf, useProcessTracker } from '../../../test-support/index.js';
import { detectAgent } from '../src/mcp/agent-identity.js';

describe('detectAgent', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  it('names the lease after the agent and the session its marker names', () => {
    const claude = detectAgent(
      { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: '4f1c2a9b-77aa-4c1e-9d1f-0123456789ab' },
      process.pid,
    );
    expect(claude).toEqual({
      agent: 'claude-code',
      agentName: 'Claude Code',
      sessionId: '4f1c2a9b-77aa-4c1e-9d1f-0123456789ab',
      leaseName: 'mcp · claude-code · 4f1c2a9b',
    });
    expect(detectAgent({ CODEX_THREAD_ID: 'thread-9' }, process.pid)).toMatchObject({
      agent: 'codex',
      sessionId: 'thread-9',
      leaseName: 'mcp · codex · thread-9',
    });
    expect(detectAgent({}, process.pid)).toEqual({
      agent: null,
      agentName: null,
      sessionId: null,
      leaseName: 'mcp · unknown agent',
    });
  });

  it.skipIf(process.platform !== 'linux')(
    'recognises the agent by its parent argv when no marker reached the server',
    async () => {
      const dir = makeTempDir();
      dirs.push(dir);
      const launcher = join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
      mkdirSync(join(launcher, '..'), { recursive: true });
      writeFileSync(launcher, 'setTimeout(() => {}, 60_000);\n');
      const codex = spawn(process.execPath, [launcher], { stdio: 'ignore' });
      const pid = tracker.trackChild(codex);
      await pollUntil(() => startTimeOf(pid), { description: 'the fake codex running' });
      expect(detectAgent({}, pid)).toMatchObject({
        agent: 'codex',
        sessionId: null,
        leaseName: `mcp · codex · pid ${pid}`,
      });
    },
  );
});
