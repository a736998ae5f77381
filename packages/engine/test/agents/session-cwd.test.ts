/**
 * A session's directory is shown once any read has it, over real processes: a fake Claude whose
 * launching shell exited (so its root sits under pid 1, as a terminal closed behind it leaves it)
 * is first recognised by the watcher's focused read, which reads no cwd for pid 1's children
 * without markers. The record written then has no cwd; the next tick (which reads remembered roots
 * with their cwd) must fill it in rather than keep "unknown directory" for the session's life.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAUDE_REPORTS, CLAUDE_STUB } from '../../../../test-support/fake-agents.js';
import { hasMarkers, readFocusedTable } from '../../src/agents/observe/focused-table.js';
import { findSubreapers, markerReaderFor, observeTable } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readSessions } from '../../src/agents/sessions/session-store.js';
import { readProcEntry, readProcTable } from '../../src/table/linux-proc.js';

import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../helpers/index.js';

const tracker = useProcessTracker();

/** Starts the fake Claude from a shell that exits at once: its root is orphaned. Returns the root's pid. */
async function orphanedClaude(dir: string): Promise<number> {
  const stub = join(dir, CLAUDE_STUB);
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(fixturePath('agents/fake-claude.mjs')).href)});\n`);
  const reportFile = join(dir, 'report.jsonl');
  const printed = execFileSync(
    'sh',
    ['-c', 'setsid "$0" "$1" </dev/null >/dev/null 2>&1 & echo $!', process.execPath, stub],
    {
      cwd: dir,
      env: { ...process.env, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) },
      encoding: 'utf8',
    },
  );
  const rootPid = Number(printed.trim());
  tracker.trackPid(rootPid);
  for (const report of await readReportedPids(tracker, reportFile, CLAUDE_REPORTS)) tracker.trackPid(report.pid);
  return rootPid;
}

describe('a session recognised without its directory gains it', () => {
  it('the focused read finds an orphaned root without cwd; the next tick records the real one', async () => {
    const dir = makeTempDir('tw-cwd-session-');
    const stateRoot = makeTempDir('tw-cwd-state-');
    const rootPid = await orphanedClaude(dir);
    const uid = process.getuid?.();
    const subreapers = findSubreapers(readProcTable(), uid);
    await pollUntil(
      () => {
        const ppid = readProcEntry(rootPid)?.ppid;
        return ppid !== undefined && (ppid === 1 || subreapers.has(ppid));
      },
      { description: `root ${rootPid} adopted` },
    );
    const { rules } = loadAgentRules(makeTempDir());
    const context = { stateRoot, rules, readMarkers: markerReaderFor(rules), uid };
    const evidence = hasMarkers(context.readMarkers);

    const first = readFocusedTable([], subreapers, evidence, new Map());
    // The cause: a marker-less child of an adopter is read without its cwd.
    expect(first.entries.get(rootPid)?.cwd).toBeNull();
    const seen = observeTable(context, first, [], [], false, subreapers);
    const session = seen.sessions.find((candidate) => candidate.root.pid === rootPid);
    expect(session, 'the orphaned root is recognised by the focused read').toBeDefined();

    const second = readFocusedTable(seen.sessions, subreapers, evidence, new Map());
    const after = observeTable(context, second, seen.sessions, [], false, subreapers);
    const expected = readlinkSync(`/proc/${rootPid}/cwd`);
    expect(after.sessions.find((candidate) => candidate.id === session?.id)?.cwd).toBe(expected);
    expect(readSessions(stateRoot).sessions.find((candidate) => candidate.id === session?.id)?.cwd).toBe(expected);
  });
});
