#!/usr/bin/env node
/**
 * `npm run test:agents`: the real agent CLIs from the npm registry, run the way users run them
 * (their npm .bin launcher, a fresh temp HOME, no credentials), each with a stdio MCP server behind
 * a wrapper that forwards no signals and a marker-less decoy reparented to pid 1. Asserts: the
 * session is recognised with the right agent and its MCP member, the leftover is reported after
 * the agent's exit (the delay is printed; the bound asserted is generous), plain `orphans --clean`
 * ends it, and the decoy survives. Packages are cached outside the repo
 * (${XDG_CACHE_HOME:-~/.cache}/treewarden-agents/<pkg>@<ver>) and reused. Writes the last result
 * to tools/agents/last-result.json (`node tools/agents/table.mjs` prints the README's table).
 * Every process it starts is ended by pid (or its own process group), never by name.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS } from './agents.mjs';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(REPO, 'apps', 'cli', 'dist', 'main.js');
const RESULT_FILE = join(REPO, 'tools', 'agents', 'last-result.json');
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'treewarden-agents');
/** How long an agent may take to start its MCP server and be recognised (cold Node, no network). */
const RECOGNISE_DEADLINE_MS = 60_000;
/** How long the agent may take to exit after SIGTERM. */
const EXIT_DEADLINE_MS = 15_000;
/** Generous bound on "leftover reported after the agent's exit" (the target is 1 s; the figure is printed). */
const REPORT_BOUND_MS = 10_000;
const POLL_MS = 100;
const INSTALL_TIMEOUT_MS = 300_000;

const started = [];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function cli(args, env) {
  const out = execFileSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return args.includes('--json') ? JSON.parse(out) : out;
}

async function pollUntil(what, deadlineMs, check) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/** The package installed in the cache (reused), or why it cannot be here. */
function install(agent) {
  const dir = join(CACHE, `${agent.pkg.replace('/', '+')}@${agent.version}`);
  const bin = join(dir, 'node_modules', '.bin', agent.bin);
  if (existsSync(bin) && !agent.needsInstallScript) return { dir, bin, cached: true };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"treewarden-agent-cache","private":true}\n');
  const run = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${agent.pkg}@${agent.version}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (run.status !== 0) return { skip: `npm install failed: ${(run.stderr ?? '').trim().split('\n').pop()}` };
  // npm 11 blocks dependencies' install scripts: a package that fetches its binary there has none.
  const log = `${run.stdout}${run.stderr}`;
  if (!existsSync(bin) || (agent.needsInstallScript && /install-scripts/.test(log)))
    return { skip: 'its install step downloads the binary from elsewhere (install scripts are blocked)' };
  return { dir, bin, cached: false };
}

/** A wrapper that ignores TERM/INT/HUP and forwards nothing to the stdio server it starts. */
function writeLeakyWrapper(dir) {
  const wrapper = join(dir, 'leaky-mcp.sh');
  writeFileSync(
    wrapper,
    `#!/bin/sh\ntrap '' TERM INT HUP\n"${process.execPath}" -e 'process.stdin.resume(); setInterval(() => {}, 1000)' tw-leaky-mcp-server &\nwait\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** A marker-less process reparented to pid 1 (an innocent that looks like a leak). */
function startDecoy() {
  const out = execFileSync(
    'sh',
    ['-c', `setsid "${process.execPath}" -e 'setInterval(() => {}, 1000)' tw-decoy >/dev/null 2>&1 & echo $!`],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  const pid = Number(out.trim());
  started.push(pid);
  return pid;
}

/** The processes under `rootPid` plus any leaky MCP server, for a failure's message. */
function describeTree(rootPid) {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter(Boolean)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const keep = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows)
      if (keep.has(row.ppid) && !keep.has(row.pid)) {
        keep.add(row.pid);
        grew = true;
      }
  }
  return rows
    .filter((row) => keep.has(row.pid) || row.args.includes('tw-leaky-mcp-server'))
    .map((row) => `${row.pid}<${row.ppid} ${row.args.slice(0, 160)}`)
    .join('; ');
}

async function runAgent(agent) {
  const installed = install(agent);
  if (installed.skip) return { agent: agent.id, version: agent.version, launch: agent.launch, skipped: installed.skip };
  const home = mkdtempSync(join(tmpdir(), 'tw-agent-home-'));
  const state = mkdtempSync(join(tmpdir(), 'tw-agent-state-'));
  const project = join(home, 'project');
  mkdirSync(project);
  const wrapper = writeLeakyWrapper(home);
  agent.configure({ home, project, wrapper });
  const env = { TREEWARDEN_HOME: state };
  const decoy = startDecoy();
  const child = spawn(installed.bin, agent.args, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home, TERM: 'dumb', ...agent.env },
    stdio: [agent.stdin ?? 'pipe', 'ignore', 'ignore'],
    detached: true,
  });
  started.push(-child.pid);
  try {
    const session = await pollUntil('the session and its MCP member', RECOGNISE_DEADLINE_MS, () => {
      const rows = cli(['sessions', '--json'], env).sessions ?? [];
      return rows.find(
        (row) => row.state === 'live' && row.members.some((member) => member.args.includes('tw-leaky-mcp-server')),
      );
    }).catch((error) => {
      throw new Error(`${error.message}; processes: ${describeTree(child.pid) || 'none (the agent exited)'}`);
    });
    const server = session.members.find((member) => member.args.includes('tw-leaky-mcp-server'));
    started.push(server.pid);
    // The agent exits (its processes, not the MCP server's: the wrapper forwards nothing anyway).
    const agentPids = [session.root.pid, ...session.members.filter((m) => m.role === 'agent').map((m) => m.pid)];
    for (const pid of agentPids) if (alive(pid)) process.kill(pid, 'SIGTERM');
    await pollUntil('the agent to exit', EXIT_DEADLINE_MS, () => agentPids.every((pid) => !alive(pid)));
    const exitAt = Date.now();
    const leak = await pollUntil('the leftover to be reported', REPORT_BOUND_MS, () => {
      const groups = cli(['orphans', '--json'], env).groups ?? [];
      return groups.find((group) => group.kind === 'agent' && group.processes.some((p) => p.pid === server.pid));
    });
    const reportMs = Date.now() - exitAt;
    cli(['orphans', '--clean'], env);
    await pollUntil('plain orphans --clean to end the leftover', EXIT_DEADLINE_MS, () => !alive(server.pid));
    if (!alive(decoy)) throw new Error('the decoy was ended');
    return {
      agent: agent.id,
      name: agent.name,
      version: agent.version,
      launch: agent.launch,
      verified: new Date().toISOString().slice(0, 10),
      session: session.agent,
      members: session.members.map((m) => m.role),
      leakedAs: leak.root === null ? 'markers-only' : 'session',
      reportMs,
      cached: installed.cached,
      ok: session.agent === agent.id && leak.root !== null,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

function endStarted() {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

async function main() {
  const only = process.argv.slice(2);
  const t0 = Date.now();
  const results = [];
  for (const agent of AGENTS.filter((a) => only.length === 0 || only.includes(a.id))) {
    const t = Date.now();
    let result;
    try {
      result = await runAgent(agent);
    } catch (error) {
      result = { agent: agent.id, version: agent.version, launch: agent.launch, ok: false, error: String(error) };
    } finally {
      endStarted();
    }
    result.seconds = Math.round((Date.now() - t) / 100) / 10;
    results.push(result);
    const status = result.skipped
      ? `skipped: ${result.skipped}`
      : result.ok
        ? 'ok'
        : `FAILED: ${result.error ?? JSON.stringify(result)}`;
    const figure = result.reportMs === undefined ? '' : `, leftover reported ${result.reportMs} ms after exit`;
    console.log(`${agent.id} ${agent.version}: ${status}${figure} (${result.seconds} s)`);
  }
  writeFileSync(
    RESULT_FILE,
    `${JSON.stringify({ ranAt: new Date().toISOString(), seconds: (Date.now() - t0) / 1000, results }, null, 2)}\n`,
  );
  console.log(
    `test:agents: ${results.filter((r) => r.ok).length} ok, ${results.filter((r) => r.skipped).length} skipped, ${results.filter((r) => !r.ok && !r.skipped).length} failed in ${Math.round((Date.now() - t0) / 1000)} s`,
  );
  return results.some((r) => !r.ok && !r.skipped) ? 1 : 0;
}

process.on('exit', endStarted);
main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
