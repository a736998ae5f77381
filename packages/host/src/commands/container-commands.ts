/**
 * stopSessionContainers: stops ended agent sessions' leftover containers through the engine's
 * container clean-up (the one `treewarden orphans --clean` uses: re-inspect id and creation time,
 * stop with a grace, then kill; never remove). The leftovers are judged again first, from the
 * container engine now: only containers the user confirmed (`targets`, id and creation time) that
 * are still running leftovers of an ended session (of the session asked for) are stopped; weakly
 * attributed ones only with `includeWeak`. Every other target is answered with why.
 */
import type { SessionContainer } from '@treewarden/engine';
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import { CommandRefusedError } from './run-commands.js';

type StopResult = CommandResult<'stopSessionContainers'>['containers'][number];
type Target = CommandOf<'stopSessionContainers'>['targets'][number];

/** The fresh leftover a confirmed target still names, or why it names none. */
function judge(
  target: Target,
  byId: ReadonlyMap<string, SessionContainer>,
  sessionId: string | undefined,
): SessionContainer | StopResult {
  const refused = (result: StopResult['result'], detail: string): StopResult => ({
    id: target.id,
    name: byId.get(target.id)?.name ?? '',
    sessionId: byId.get(target.id)?.sessionId ?? sessionId ?? null,
    result,
    detail,
  });
  const leftover = byId.get(target.id);
  if (leftover === undefined)
    return refused(
      'refused',
      'no longer a running container of an ended session (stopped, removed, or its session lives again): nothing was stopped',
    );
  if (sessionId !== undefined && leftover.sessionId !== sessionId)
    return refused('refused', `a leftover of session ${leftover.sessionId}, not of ${sessionId}: nothing was stopped`);
  if (leftover.createdAtMs !== target.createdAtMs)
    return refused(
      'changed',
      `not the container confirmed (created ${leftover.createdAtMs}, confirmed ${target.createdAtMs}): nothing was stopped`,
    );
  return leftover;
}

export async function handleStopSessionContainers(
  context: HostContext,
  command: CommandOf<'stopSessionContainers'>,
): Promise<CommandResult<'stopSessionContainers'>> {
  const { port } = context;
  if (port.findContainerLeftovers === undefined || port.stopContainers === undefined)
    throw new CommandRefusedError('this host does not stop containers: nothing was stopped');
  // Judge again now: the list the user confirmed may be a poll (or an engine event) old.
  const scan = await port.findContainerLeftovers().catch((error: unknown) => {
    throw new CommandRefusedError(`the container engine could not be asked: ${(error as Error).message}`);
  });
  if (scan === null) throw new CommandRefusedError('no container engine socket found here: nothing was stopped');
  const byId = new Map(scan.leftovers.map((leftover) => [leftover.id, leftover]));
  const results = new Map<string, StopResult>();
  const selected: SessionContainer[] = [];
  for (const target of command.targets) {
    if (results.has(target.id) || selected.some((s) => s.id === target.id)) continue;
    const judged = judge(target, byId, command.sessionId);
    if ('result' in judged) results.set(target.id, judged);
    else selected.push(judged);
  }
  const cleaned = await port.stopContainers(scan, selected, {
    includeWeak: command.includeWeak === true,
    ...(command.graceSeconds === undefined ? {} : { graceSeconds: command.graceSeconds }),
  });
  for (const one of cleaned) results.set(one.id, { ...one });
  context.requestPoll();
  return {
    containers: command.targets
      .map((target) => results.get(target.id))
      .filter((result, index, all): result is StopResult => result !== undefined && all.indexOf(result) === index),
  };
}
