/**
 * `treewarden trim SESSION_ID [--kind K] [--target PID:START]… [--yes] [--json]`: ends a live
 * session's pile-up. Without --yes it previews: every alerted process by identity, and why. With
 * --yes it previews, judges again from a fresh read, and ends exactly the identities both
 * judgements alerted (and, with --target, that the user named), each set with the revalidated
 * tree kill, one ledger record per set. Exit 0 done, 1 nothing to trim, 3 refused or changed
 * (nothing signalled for those), 125 survivors.
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_TRIM_KINDS,
  identityKey,
  type JudgedAlert,
  observeAgentsOnce,
  type ProcessCleanReport,
  type ProcessIdentity,
  selectTrim,
  type TrimRequest,
  toSessionAlert,
  trimAlerts,
} from '@treewarden/engine';
import { SESSION_ALERT_KINDS, type SessionAlertKind } from '@treewarden/protocol';
import { parsePid, writeOut } from '../args.js';
import { EXIT_KILL_FAILED, EXIT_NOTHING_TO_TRIM, EXIT_OK, EXIT_REFUSED } from '../exit-codes.js';
import { terminalArgs, writeText } from '../terminal-text.js';
import { agentContext } from './agent-context.js';
import { type CliCommand, UsageError } from './command.js';
import { alertConfig, alertLine, judgeObservation } from './session-alerts.js';

const USAGE = 'treewarden trim SESSION_ID [--kind K] [--target PID:START]... [--yes] [--json]';
const OPTIONS = {
  kind: { type: 'string' },
  target: { type: 'string', multiple: true },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

type Emit = (json: Record<string, unknown>, text: string) => Promise<void>;

function parseKind(raw: string | undefined): SessionAlertKind | undefined {
  if (raw === undefined) return undefined;
  const kind = SESSION_ALERT_KINDS.find((candidate) => candidate === raw);
  if (kind === undefined)
    throw new UsageError(`--kind ${JSON.stringify(raw)} is not one of ${SESSION_ALERT_KINDS.join(', ')}`);
  return kind;
}

function parseTarget(raw: string): ProcessIdentity {
  const [pid, startTime, ...rest] = raw.split(':');
  if (startTime === undefined || startTime === '' || rest.length > 0)
    throw new UsageError(`--target ${JSON.stringify(raw)} is not PID:START (as the preview prints it)`);
  return { pid: parsePid('--target', pid) as number, startTime };
}

/** What one judgement alerts in the session, or why there is nothing to judge. */
function judge(
  context: ReturnType<typeof agentContext>,
  config: Awaited<ReturnType<typeof alertConfig>>,
  sessionId: string,
): { alerts: JudgedAlert[]; missing?: string } {
  const observation = observeAgentsOnce(context);
  const session = observation.sessions.find((candidate) => candidate.id === sessionId);
  if (session === undefined)
    return { alerts: [], missing: `no agent session ${sessionId} (see \`treewarden sessions\`)` };
  if (session.endedAtMs !== null)
    return { alerts: [], missing: `session ${sessionId} has ended: what it left is a leak (\`treewarden orphans\`)` };
  return { alerts: judgeObservation(observation, config) };
}

function previewOf(alerts: readonly JudgedAlert[]): { json: Record<string, unknown>[]; text: string } {
  const now = Date.now();
  const json = alerts.map((alert) => ({
    ...toSessionAlert(alert, now),
    commands: alert.processes.map((entry) => ({ pid: entry.pid, startTime: entry.startTime, args: [...entry.args] })),
  }));
  const text = alerts
    .map((alert) =>
      [
        alertLine({ kind: alert.kind, pids: alert.processes.map((entry) => entry.pid), why: alert.why }),
        ...alert.processes.map(
          (entry) => `    ${entry.pid}:${entry.startTime}  ${terminalArgs(entry.args).slice(0, 100)}`,
        ),
      ].join('\n'),
    )
    .join('\n');
  return { json, text };
}

function exitFor(reports: readonly ProcessCleanReport[]): number {
  if (reports.some((report) => report.result === 'kill_failed' || report.result === 'error')) return EXIT_KILL_FAILED;
  if (reports.some((report) => report.result === 'refused')) return EXIT_REFUSED;
  return EXIT_OK;
}

async function trimNow(request: TrimRequest, alerts: readonly JudgedAlert[], ledgerFile: string, emit: Emit) {
  const selection = selectTrim(alerts, request);
  const reports: (ProcessCleanReport & { kind?: SessionAlertKind })[] = [...selection.refused];
  for (const trimmed of await trimAlerts(selection.alerts, { ledgerFile }))
    reports.push(...trimmed.processes.map((process) => ({ ...process, kind: trimmed.alert.kind })));
  const text = reports
    .map((report) => `${report.pid}:${report.startTime} ${report.result}${report.detail ? ` (${report.detail})` : ''}`)
    .join('\n');
  await emit(
    { sessionId: request.sessionId, trimmed: true, processes: reports },
    `trimmed ${request.sessionId}:\n${text}`,
  );
  return exitFor(reports);
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const [sessionId, ...extra] = positionals;
  if (sessionId === undefined || extra.length > 0) throw new UsageError('name exactly one SESSION_ID');
  const kind = parseKind(values.kind);
  const named = values.target?.map(parseTarget);
  const context = agentContext();
  const config = await alertConfig(context.stateRoot);
  const emit: Emit = (json, text) =>
    values.json === true
      ? writeOut(process.stdout, `${JSON.stringify(json)}\n`)
      : writeText(process.stdout, `${text}\n`);
  const first = judge(context, config, sessionId);
  if (first.missing !== undefined) {
    await writeText(process.stderr, `treewarden trim: ${first.missing}; nothing to trim\n`);
    return EXIT_NOTHING_TO_TRIM;
  }
  const base = { sessionId, ...(kind !== undefined ? { kind } : {}) };
  const preview = selectTrim(first.alerts, { ...base, ...(named !== undefined ? { targets: named } : {}) });
  const shown = previewOf(preview.alerts);
  const kinds = kind === undefined ? DEFAULT_TRIM_KINDS.join(', ') : kind;
  const refusedText = preview.refused.map(
    (report) => `${report.pid}:${report.startTime} ${report.result}: ${report.detail ?? ''}`,
  );
  await emit(
    { sessionId, preview: true, alerts: shown.json, refused: preview.refused },
    [shown.text === '' ? `nothing alerted in ${sessionId} (${kinds})` : shown.text, ...refusedText].join('\n'),
  );
  if (preview.alerts.length === 0) return preview.refused.length > 0 ? EXIT_REFUSED : EXIT_NOTHING_TO_TRIM;
  if (values.yes !== true) return preview.refused.length > 0 ? EXIT_REFUSED : EXIT_OK;
  // Judged again right before the kill: only what both judgements alerted is ended.
  const targets = [...preview.alerts.flatMap((alert) => alert.processes), ...preview.refused];
  const again = judge(context, config, sessionId);
  const unique = [...new Map(targets.map((target) => [identityKey(target), target])).values()].map(
    ({ pid, startTime }) => ({ pid, startTime }),
  );
  return trimNow({ ...base, targets: unique }, again.alerts, context.ledgerFile, emit);
}

export const trimCommand: CliCommand = {
  summary: "end a live agent session's pile-up (duplicate MCP servers, stale subagents, runaway jobs) by identity",
  usage: USAGE,
  main,
};
