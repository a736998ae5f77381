/**
 * Untrusted strings on a terminal, through the built CLI on real processes: a listener whose argv
 * and cwd carry a newline, ESC sequences, a bidi override and DEL, and a fake Claude started in
 * such a directory. `ps`, `ports`, `free-port`, `sessions`, `run` + `history` print no raw control
 * byte and one line per process (a forged line would be a second line naming the process).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cliRunsTimeoutMs, runCli } from '../../../test-support/cli-helpers.js';
import { CLAUDE_REPORTS, CLAUDE_STUB } from '../../../test-support/fake-agents.js';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  privateHome,
  REPORT_ENV,
  readReportedPids,
  removeTempDir,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../../../test-support/index.js';

/** What another user could put in argv or a directory name to forge root's terminal. */
const EVIL = 'x\n\u001b[2J\u001b[31mFORGED 1 1 1\r\u202etxt.exe\u007f\u009b';
/** A raw control byte (tab and newline between lines are the CLI's own and allowed) or bidi control. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw controls is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const LISTENER = `
const [reportFile] = process.argv.slice(1);
const server = require('node:net').createServer();
server.listen(0, '127.0.0.1', () => require('node:fs').writeFileSync(reportFile, String(server.address().port)));
setTimeout(() => process.exit(0), ${TEST_FIXTURE_LIFETIME_MS});
`;

const tracker = useProcessTracker();
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => {
  for (const dir of dirs.splice(0)) removeTempDir(dir);
});

function evilDir(): string {
  const dir = makeTempDir('tw-escape-');
  dirs.push(dir);
  const evil = join(dir, EVIL);
  mkdirSync(evil);
  return evil;
}

/** Shown in place of EVIL: every byte visible, all on one line (narrow columns may cut its end). */
const SHOWN = 'x\\n\\x1b[2J\\x1b[31mFORGED 1 1 1\\r\\u202etxt.exe\\x7f\\x9b';

/** No raw control, and the forged text never starts a line of its own: it stays behind its escapes. */
function expectClean(output: string): void {
  expect(RAW_CONTROL.test(output), JSON.stringify(output)).toBe(false);
  const forged = output.split('FORGED').length - 1;
  expect(forged, output).toBeGreaterThan(0);
  expect(output.split(SHOWN.slice(0, SHOWN.indexOf('FORGED') + 'FORGED'.length)).length - 1, output).toBe(forged);
}

async function startEvilListener(): Promise<{ pid: number; port: number }> {
  const cwd = evilDir();
  const reportFile = join(cwd, '..', 'port');
  const child = spawn(process.execPath, ['-e', LISTENER, reportFile, EVIL], { cwd, detached: true, stdio: 'ignore' });
  const pid = tracker.trackChild(child, { detached: true });
  const port = await pollUntil(
    () => {
      try {
        return Number(readFileSync(reportFile, 'utf8')) || null;
      } catch {
        return null;
      }
    },
    { description: 'the evil listener reports its port' },
  );
  return { pid, port };
}

describe('untrusted strings on a terminal', () => {
  // Five CLI runs one after another, and the listener's start before them.
  it('ps, ports and free-port print one escaped line per process', { timeout: cliRunsTimeoutMs(6) }, async () => {
    const { pid, port } = await startEvilListener();
    for (const args of [
      ['ps'],
      ['ps', '--pid', String(pid)],
      ['ps', '--tree'],
      ['ports'],
      ['free-port', String(port)],
    ]) {
      const result = await runCli(args);
      expectClean(result.stdout + result.stderr);
      // One line per process: the listener's pid starts exactly one line of the table.
      if (args[0] === 'ps' || args[0] === 'ports')
        expect(
          result.stdout.split('\n').filter((line) => line.includes(` ${pid} `) && line.includes('FORGED')),
        ).toHaveLength(1);
    }
  });

  it('sessions shows an evil cwd and argv escaped', async () => {
    const cwd = evilDir();
    const stub = join(cwd, CLAUDE_STUB);
    mkdirSync(join(stub, '..'), { recursive: true });
    writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(fixturePath('agents/fake-claude.mjs')).href)});\n`);
    const reportFile = join(cwd, '..', 'report.jsonl');
    const child = spawn(process.execPath, [stub], {
      cwd,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) },
    });
    const rootPid = tracker.trackChild(child, { detached: true });
    await readReportedPids(tracker, reportFile, CLAUDE_REPORTS);
    const result = await pollUntil(
      async () => {
        const text = await runCli(['sessions']);
        return text.stdout.includes(`root ${rootPid} in`) ? text : null;
      },
      { description: 'the fake claude in the evil dir is a session' },
    );
    expectClean(result.stdout + result.stderr);
    expect(result.stdout.split('\n').find((line) => line.includes(`root ${rootPid} in`))).toContain(SHOWN);
  });

  it('run and history print an evil argv escaped', async () => {
    const home = privateHome();
    dirs.push(home.TREEWARDEN_HOME ?? '');
    const run = await runCli(['run', '--', '/bin/true', EVIL], home);
    expect(run.code, run.stderr).toBe(0);
    const history = await runCli(['history'], home);
    expectClean(history.stdout + history.stderr);
    expect(history.stdout.split('\n').filter((line) => line.length > 0)).toHaveLength(1);
  });
});
