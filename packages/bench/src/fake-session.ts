/**
 * A fake agent session for the benches: a fixture started as `node …/@anthropic-ai/claude-code/cli.js`
 * (the shape the built-in Claude rule recognises) in a private temp dir, its processes' pids read
 * from the fixture's own reports. The fixture caps its own lifetime, so a bench that dies leaves nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sleep } from './util.js';

export interface FakeSession {
  readonly child: ChildProcess;
  readonly dir: string;
  /** Every pid the fixture reported (callers may add what reports nothing, e.g. `sh -c` shells). */
  readonly pids: number[];
}

export interface FakeSessionOptions {
  /** Absolute path of the fixture the stub imports. */
  readonly fixture: string;
  /** Prefix of the temp dir, which names the bench. */
  readonly label: string;
  /** Reports to wait for before the session counts as up. */
  readonly reports: number;
  readonly readyMs: number;
  readonly lifetimeMs: number;
  readonly env?: Readonly<Record<string, string>>;
  /** The stub's path in the dir, which gives the agent's argv shape (default: Claude's cli.js). */
  readonly stub?: string;
}

/** Stub paths of five agents' npm launch shapes (the built-in rules recognise each by `node STUB`). */
export const AGENT_STUBS: readonly { readonly agent: string; readonly stub: string }[] = [
  { agent: 'claude-code', stub: 'node_modules/@anthropic-ai/claude-code/cli.js' },
  { agent: 'codex', stub: 'node_modules/@openai/codex/bin/codex.js' },
  { agent: 'gemini', stub: 'node_modules/@google/gemini-cli/dist/index.js' },
  { agent: 'qwen-code', stub: 'node_modules/@qwen-code/qwen-code/cli.js' },
  { agent: 'copilot', stub: 'node_modules/@github/copilot/npm-loader.js' },
];

const REPORT_POLL_MS = 50;

export async function startFakeSession(options: FakeSessionOptions): Promise<FakeSession> {
  const dir = mkdtempSync(join(tmpdir(), `tw-${options.label}-bench-`));
  const stub = join(dir, options.stub ?? 'node_modules/@anthropic-ai/claude-code/cli.js');
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(options.fixture).href)});\n`);
  const report = join(dir, 'report.jsonl');
  const env = {
    ...process.env,
    ...options.env,
    TREEWARDEN_FIXTURE_REPORT: report,
    TREEWARDEN_FIXTURE_MAX_LIFETIME_MS: String(options.lifetimeMs),
  };
  const child = spawn(process.execPath, [stub], { cwd: dir, detached: true, stdio: 'ignore', env });
  const deadline = Date.now() + options.readyMs;
  for (;;) {
    const lines = existsSync(report) ? readFileSync(report, 'utf8').trim().split('\n') : [];
    if (lines.length >= options.reports)
      return { child, dir, pids: lines.map((line) => (JSON.parse(line) as { pid: number }).pid) };
    if (Date.now() > deadline)
      throw new Error(`${options.label} bench: fake session not up within ${options.readyMs} ms`);
    await sleep(REPORT_POLL_MS);
  }
}

/** SIGKILLs every recorded pid (by pid, never by name) and removes the session's dir. */
export function endFakeSession(session: FakeSession): void {
  for (const pid of session.pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone (the bench may have cleaned it itself).
    }
  }
  rmSync(session.dir, { recursive: true, force: true });
}
