/**
 * A user agent rule that matches everything (root `.*`, marker `PATH`) is refused with a message
 * naming the file and the rule, and `orphans --clean --all` then ends nothing: a real innocent
 * process (no agent evidence, reparented to pid 1 like a leak) survives.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { isRunning, makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../../../test-support/index.js';

const SLEEP_SECONDS = '60';

describe.skipIf(process.platform !== 'linux')('agent rules too broad to be evidence', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  function stateWithRules(rules: unknown): { env: Record<string, string>; file: string } {
    const root = makeTempDir();
    dirs.push(root);
    mkdirSync(join(root, 'agent-rules'), { mode: 0o700 });
    const file = join(root, 'agent-rules', 'everything.json');
    writeFileSync(file, JSON.stringify(rules), { mode: 0o600 });
    return { env: { TREEWARDEN_HOME: root }, file };
  }

  it.each([
    [{ argv0: '.*' }, [], /roots\[0\] \(argv0 "\.\*"\) is too broad: it matches an empty argv/],
    [{ commandLine: '^' }, [], /roots\[0\] \(commandLine "\^"\) is too broad: it matches an empty argv/],
    [
      { argv0: '[a-z]' },
      [],
      /roots\[0\] \(argv0 "\[a-z\]"\) is too broad: it matches \d+ of 20 ordinary command lines/,
    ],
    [
      { argv0: '^my-agent$' },
      [{ name: 'PATH' }],
      /markers\[0\] \(name "PATH"\) is too broad: nearly every process has PATH/,
    ],
    [{ argv0: '^my-agent$' }, [{ name: 'HOME', value: '^/root$' }], /markers\[0\] \(name "HOME"\) is too broad/],
  ])('refuses root %j with markers %j, naming the file and the rule', async (root, markers, message) => {
    const { env, file } = stateWithRules({
      version: 1,
      agents: [{ id: 'everything', name: 'Everything', roots: [root], markers }],
    });
    const result = await runCli(['sessions', '--json'], env);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { problems?: { file: string; message: string }[] };
    expect(body.problems?.[0]?.file).toBe(file);
    expect(body.problems?.[0]?.message).toMatch(/^skipped: agent "everything" /);
    expect(body.problems?.[0]?.message).toMatch(message);
  });

  it('orphans reports no innocent process under a match-everything rule (nothing --clean --all could end)', async () => {
    const { env, file } = stateWithRules({
      version: 1,
      agents: [{ id: 'everything', name: 'Everything', roots: [{ argv0: '.*' }], markers: [{ name: 'PATH' }] }],
    });
    // An innocent orphan: its parent shell exits at once, so it is reparented (like a leak would be).
    const shell = spawn('sh', ['-c', `sleep ${SLEEP_SECONDS} & echo $!`], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    tracker.trackChild(shell, { detached: true });
    let output = '';
    shell.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const innocent = await pollUntil(() => (output.includes('\n') ? Number(output.trim()) : undefined), {
      description: 'the innocent sleeper',
    });
    tracker.trackPid(innocent);

    // The listing `--clean --all` acts on (it ends exactly the reported groups). Not `--clean --all`
    // itself: on this shared machine it would also end other files' marker-only leaks and runs.
    const result = await runCli(['orphans', '--json'], env);
    expect(result.stderr).toContain(`treewarden orphans: ${file}: skipped: agent "everything" roots[0]`);
    const body = JSON.parse(result.stdout) as { groups: { kind: string; processes: { pid: number }[] }[] };
    const reported = body.groups.flatMap((group) => group.processes.map((p) => p.pid));
    expect(reported).not.toContain(innocent);
    expect(isRunning(innocent)).toBe(true);
  });

  it('names the user rule file in the reasons of the agent find it made (orphans --json)', async () => {
    const mark = `tw-${process.pid}-${Date.now()}`;
    const { env, file } = stateWithRules({
      version: 1,
      agents: [
        { id: 'my-agent', name: 'Mine', roots: [{ argv0: '(^|/)my-agent$' }], markers: [{ name: 'TW_MY_AGENT_MARK' }] },
      ],
    });
    tracker.trackEnvMarker('TW_MY_AGENT_MARK', mark);
    const shell = spawn('sh', ['-c', `sleep ${SLEEP_SECONDS} & echo $!`], {
      detached: true,
      env: { ...process.env, TW_MY_AGENT_MARK: mark },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    tracker.trackChild(shell, { detached: true });
    let output = '';
    shell.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const marked = await pollUntil(() => (output.includes('\n') ? Number(output.trim()) : undefined), {
      description: 'the marked orphan',
    });
    tracker.trackPid(marked);
    await pollUntil(() => !isRunning(shell.pid as number), { description: 'its parent shell gone' });

    const result = await runCli(['orphans', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as {
      groups: { kind: string; processes: { pid: number; reasons: string[] }[] }[];
    };
    const found = body.groups.flatMap((group) => group.processes).find((p) => p.pid === marked);
    expect(found?.reasons[0]).toBe(
      `my-agent marker TW_MY_AGENT_MARK=${mark} (rule ${file}); no live session claims it`,
    );
  });
});
