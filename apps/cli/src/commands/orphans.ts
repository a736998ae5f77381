/**
 * `treewarden orphans [--json] [--clean [--all]] [--grace S] [--session ID]...`: live processes of runs that are
 * over (or of leases whose holder died), grouped per run with why each one was judged leaked,
 * plus unregistered trees (a run cookie nobody recorded, reparented to pid 1). `--clean` ends the
 * recorded ones with the revalidated tree kill and reports; `--all` also ends unregistered ones.
 * Agent sessions' leaks come as `kind: "agent"` groups; `--clean` ends those of remembered
 * sessions, `--all` also the trees found from markers alone. `--session` narrows it all to those
 * agent sessions' leaks (runs' and leases' groups are left out: they belong to no session).
 * Exits EXIT_KILL_FAILED when something outlived the clean-up.
 */
import { parseArgs } from 'node:util';
import {
  type CleanedGroup,
  type CleanedLeak,
  cleanOrphans,
  findOrphans,
  type OrphanGroup,
  type OrphanScan,
  settleEndedRuns,
  statePaths,
  survivorsOf,
} from '@treewarden/engine';
import { parseSeconds, writeOut } from '../args.js';
import { EXIT_KILL_FAILED, EXIT_OK } from '../exit-codes.js';
import { terminalArgs, terminalText, writeText } from '../terminal-text.js';
import type { CliCommand } from './command.js';
import { cleanAgentOrphans, findAgentOrphans, formatAgentCleaned, formatAgentLeak } from './orphans-agents.js';
import {
  cleanContainerOrphans,
  containerJson,
  findContainerOrphans,
  formatContainerOrphan,
} from './orphans-containers.js';
import { parseSessionScope } from './session-scope.js';

const USAGE = 'treewarden orphans [--json] [--clean [--all]] [--grace S] [--session ID]...';
const OPTIONS = {
  json: { type: 'boolean' },
  clean: { type: 'boolean' },
  all: { type: 'boolean' },
  grace: { type: 'string' },
  session: { type: 'string', multiple: true },
} as const;
const ARGS_WIDTH = 70;

function groupJson(group: OrphanGroup) {
  return {
    runId: group.runId,
    leaseId: group.leaseId,
    kind: group.kind,
    why: group.why,
    ...(group.cgroup === undefined ? {} : { cgroup: group.cgroup }),
    processes: group.members.map(({ entry, reasons }) => ({
      pid: entry.pid,
      startTime: entry.startTime,
      ppid: entry.ppid,
      pgid: entry.pgid,
      sid: entry.sid,
      cwd: entry.cwd,
      args: entry.args,
      reasons,
    })),
  };
}

function cleanedJson(cleaned: CleanedGroup) {
  return {
    runId: cleaned.group.runId,
    kills: cleaned.reports.map((report) => ({
      root: report.root.entry.pid,
      result: report.outcome?.result ?? 'error',
      killed: report.outcome?.killed ?? [],
      survivors: report.outcome?.survivors ?? [],
      ...(report.error !== undefined || report.outcome?.error !== undefined
        ? { error: report.error ?? report.outcome?.error }
        : {}),
    })),
    ...(cleaned.cgroup === undefined
      ? {}
      : { cgroupKill: { killed: cleaned.cgroup.killed, survivors: cleaned.cgroup.survivors } }),
  };
}

function agentCleanedJson(cleaned: CleanedLeak) {
  return {
    sessionId: cleaned.leak.sessionId,
    kind: 'agent',
    processes: cleaned.processes,
    ...(cleaned.agentStops !== undefined ? { agentStops: cleaned.agentStops } : {}),
  };
}

function formatGroup(group: OrphanGroup): string {
  const title = `run ${group.runId ?? '-'}${group.leaseId ? ` (lease ${group.leaseId})` : ''}: ${group.why}`;
  const lines = group.members.map(({ entry, reasons }) => {
    const args = (entry.args.length > 0 ? terminalArgs(entry.args) : terminalText(entry.command)).slice(0, ARGS_WIDTH);
    return `  ${String(entry.pid).padStart(7)}  ${args}\n           why: ${reasons.join('; ')}`;
  });
  return `${title}\n${lines.join('\n')}`;
}

function formatCleaned(cleaned: CleanedGroup): string {
  const lines = cleaned.reports.map((report) => {
    const result = report.outcome?.result ?? `error: ${report.error}`;
    const survivors = report.outcome?.survivors.map((s) => s.pid) ?? [];
    const tail = survivors.length > 0 ? `, survivors ${survivors.join(' ')}` : '';
    return `  ended tree of ${report.root.entry.pid}: ${result}${tail}`;
  });
  const cgroup = cleaned.cgroup;
  if (cgroup !== undefined && (cgroup.killed.length > 0 || cgroup.survivors.length > 0)) {
    const tail = cgroup.survivors.length > 0 ? `, survivors ${cgroup.survivors.map((s) => s.pid).join(' ')}` : '';
    lines.push(`  cgroup.kill ${cleaned.group.cgroup}: ended ${cgroup.killed.length}${tail}`);
  }
  return lines.join('\n');
}

/** Leaked processes that run as another user now: named, never cleaned (see findOtherUserLeftovers). */
function formatOtherUsers(leftovers: OrphanScan['otherUsers']): string {
  const lines = leftovers.map((leftover) => {
    const args = (leftover.args.length > 0 ? terminalArgs(leftover.args) : terminalText(leftover.command)).slice(
      0,
      ARGS_WIDTH,
    );
    return `  ${String(leftover.pid).padStart(7)}  uid ${leftover.uid}  run ${leftover.runId}  ${args}`;
  });
  return [
    "left by runs that are over, now running as another user (never cleaned: Treewarden never signals another user's process; end them as their owner):",
    ...lines,
  ].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  const graceSeconds = parseSeconds('--grace', values.grace);
  const scope = parseSessionScope(values.session);
  const paths = statePaths();
  const found = findOrphans({ paths });
  // Scoped to agent sessions: no run or lease group is shown or cleaned (each still settles below).
  const scan = scope === null ? found : { ...found, groups: [] };
  const agentLeaks = findAgentOrphans(scope);
  for (const { path, problem } of scan.leaseProblems) {
    await writeText(process.stderr, `treewarden orphans: skipped lease file ${path}: ${problem}\n`);
  }
  const containers = await findContainerOrphans(paths.root, agentLeaks.sessions, scope);
  if (containers.problem !== null) await writeText(process.stderr, `treewarden orphans: ${containers.problem}\n`);
  for (const { file, message } of agentLeaks.problems) {
    await writeText(process.stderr, `treewarden orphans: ${file}: ${message}\n`);
  }
  if (scan.invalidLedgerLines > 0) {
    await writeText(
      process.stderr,
      `treewarden orphans: skipped ${scan.invalidLedgerLines} invalid ledger record(s)\n`,
    );
  }
  const agentCleaned =
    values.clean === true
      ? await cleanAgentOrphans(agentLeaks, {
          ledgerFile: paths.ledgerFile,
          graceSeconds,
          includeUnremembered: values.all === true,
        })
      : null;
  const containersCleaned =
    values.clean === true
      ? await cleanContainerOrphans(containers, {
          graceSeconds,
          includeWeak: values.all === true,
          ledgerFile: paths.ledgerFile,
        })
      : null;
  const cleaned =
    values.clean === true
      ? await cleanOrphans(scan, {
          paths,
          includeUnregistered: values.all === true,
          ...(graceSeconds !== undefined ? { graceMs: graceSeconds * 1000 } : {}),
        })
      : null;
  const survivors = [
    ...(cleaned !== null ? survivorsOf(cleaned) : []),
    ...(agentCleaned?.flatMap((entry) => entry.survivors) ?? []),
  ];
  const containersFailed = (containersCleaned ?? []).filter((entry) => entry.result === 'failed');
  // Runs whose supervisors died are recorded as ended once nothing of them is left (after the clean-up: a fresh look).
  settleEndedRuns(cleaned !== null ? findOrphans({ paths }) : found, { paths });
  if (values.json === true) {
    const body = {
      groups: [...scan.groups.map(groupJson), ...agentLeaks.rows],
      otherUsers: found.otherUsers,
      ...(containers.leftovers.length > 0 ? { containers: containers.leftovers.map(containerJson) } : {}),
      ...(cleaned !== null
        ? {
            cleaned: [...cleaned.map(cleanedJson), ...(agentCleaned ?? []).map(agentCleanedJson)],
            survivors,
            ...(containersCleaned !== null && containersCleaned.length > 0 ? { containersCleaned } : {}),
          }
        : {}),
    };
    await writeOut(process.stdout, `${JSON.stringify(body)}\n`);
  } else if (
    scan.groups.length === 0 &&
    agentLeaks.leaks.length === 0 &&
    containers.leftovers.length === 0 &&
    found.otherUsers.length === 0
  ) {
    await writeText(process.stdout, 'no leaked processes found\n');
  } else {
    const blocks = scan.groups.map((group) => {
      const done = cleaned?.find((entry) => entry.group === group);
      if (done !== undefined) return `${formatGroup(group)}\n${formatCleaned(done)}`;
      const hint =
        cleaned !== null && group.kind === 'unregistered' ? '\n  (not cleaned: unregistered; add --all)' : '';
      return `${formatGroup(group)}${hint}`;
    });
    const agentBlocks = agentLeaks.leaks.map((leak) => {
      const done = agentCleaned?.find((entry) => entry.leak === leak);
      if (done !== undefined) return `${formatAgentLeak(leak)}\n${formatAgentCleaned(done)}`;
      const hint = agentCleaned !== null ? '\n  (not cleaned: found from markers alone; add --all)' : '';
      return `${formatAgentLeak(leak)}${hint}`;
    });
    const otherUsers = found.otherUsers.length > 0 ? [formatOtherUsers(found.otherUsers)] : [];
    const containerBlocks = containers.leftovers.map((c) =>
      formatContainerOrphan(
        c,
        containersCleaned?.find((done) => done.id === c.id),
      ),
    );
    const sections = [...blocks, ...agentBlocks, ...containerBlocks, ...otherUsers];
    await writeText(process.stdout, `${sections.join('\n\n')}\n`);
  }
  return survivors.length > 0 || containersFailed.length > 0 ? EXIT_KILL_FAILED : EXIT_OK;
}

export const orphansCommand: CliCommand = {
  summary: 'find processes leaked by ended runs or dead leases; --clean ends them',
  usage: USAGE,
  main,
};
