/**
 * A fake Claude Code session whose Bash tool starts a container the way agents start databases:
 * a shell runs `docker run -d --network none --name NAME IMAGE sleep …` (the CLI exits once the
 * container runs; the container lives on under containerd-shim, outside the session's tree). The
 * root is installed as npm installs the real one and started in its own session; it runs the
 * command only once the spec says `go` (after the UI shows the session, so the host already
 * follows the engine's event stream and knows the session when the container is created).
 * `stop()` ends the root by its recorded pid and start time; `removeContainer()` removes the
 * container by its recorded id, never another.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineRequest } from '../../test-support/docker-engine.js';
import { pollUntil } from '../../test-support/poll-until.js';
import { startTimeOf } from './fake-agent';

/** The root ends itself after this long even if every clean-up fails; the container's sleep too. */
const LIFETIME_S = 300;
/** `docker run -d` of a local image on a loaded two-core machine. */
const CONTAINER_START_TIMEOUT_MS = 60_000;

const LEAD = `
const { execFileSync } = require('node:child_process');
const { existsSync, renameSync, writeFileSync } = require('node:fs');
const env = process.env;
setTimeout(() => process.exit(0), ${LIFETIME_S * 1000});
setInterval(() => {}, 1 << 30);
const wait = setInterval(() => {
  if (!existsSync(env.TW_CT_GO)) return;
  clearInterval(wait);
  let out;
  try {
    out = 'id:' + execFileSync('sh', ['-c', 'docker run -d --network none --name "$0" "$1" sleep ${LIFETIME_S}', env.TW_CT_NAME, env.TW_CT_IMAGE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    out = 'error:' + String(error.stderr || error.message);
  }
  writeFileSync(env.TW_CT_RESULT + '.tmp', out);
  renameSync(env.TW_CT_RESULT + '.tmp', env.TW_CT_RESULT);
}, 50);
`;

export interface ContainerAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly containerName: string;
  /** Lets the root run its `docker run -d`; resolves with the container's id. */
  startContainer(): Promise<string>;
  stop(): void;
  removeContainer(): Promise<void>;
}

/** The environment of a person's terminal: no agent's markers (the root must look like a person's claude). */
function personEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env))
    if (/^(CLAUDECODE|CLAUDE_CODE_|CLAUDE_PROJECT_DIR|AI_AGENT|CODEX_|GEMINI_CLI|OPENCODE|TMUX)/.test(name))
      delete env[name];
  return env;
}

export function startContainerAgent(socketPath: string, image: string): ContainerAgent {
  const dir = mkdtempSync(join(tmpdir(), 'tw-e2e-ct-agent-'));
  const stub = join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, LEAD);
  const containerName = `tw-e2e-db-${process.pid}-${Date.now().toString(36)}`;
  const go = join(dir, 'go');
  const result = join(dir, 'container');
  const env = personEnv({
    DOCKER_HOST: `unix://${socketPath}`,
    TW_CT_GO: go,
    TW_CT_NAME: containerName,
    TW_CT_IMAGE: image,
    TW_CT_RESULT: result,
  });
  const child = spawn(process.execPath, [stub], { cwd: dir, detached: true, stdio: 'ignore', env });
  const rootPid = child.pid;
  if (rootPid === undefined) throw new Error('could not start the fake agent');
  child.unref();
  const rootStart = startTimeOf(rootPid);
  let containerId: string | null = null;
  let asked = false;
  return {
    dir,
    rootPid,
    containerName,
    async startContainer() {
      asked = true;
      writeFileSync(go, '');
      const out = await pollUntil(() => (existsSync(result) ? readFileSync(result, 'utf8') : null), {
        description: `the fake agent's docker run -d (${containerName})`,
        deadlineMs: CONTAINER_START_TIMEOUT_MS,
      });
      if (!out.startsWith('id:')) throw new Error(`docker run -d failed: ${out}`);
      containerId = out.slice(3);
      return containerId;
    },
    stop() {
      // Only the root we started (its shell and CLI exit by themselves): never a reused pid.
      if (rootStart !== null && startTimeOf(rootPid) === rootStart) process.kill(rootPid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
    async removeContainer() {
      // By its id; by its name (ours alone: this worker's pid and a timestamp) if docker run failed half-way.
      if (!asked) return;
      await engineRequest(socketPath, 'DELETE', `/containers/${containerId ?? containerName}?force=1`);
      asked = false;
    },
  };
}
