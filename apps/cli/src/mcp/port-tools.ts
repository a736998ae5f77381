/**
 * who_listens and free_port: the CLI's `ports`/`free-port` for an agent, on the same engine plan
 * (planFreePort: listeners only, the same refusals: protected pids, service managers, other
 * users, holders nobody can see, the caller's own ancestors, so never the agent itself).
 */
import {
  assertPort,
  createEntryLookup,
  createPortReader,
  describeListeners,
  executeFreePort,
  type FreePortPlan,
  type PortRow,
  type ProcessIdentity,
  pinFreePortPlan,
  planFreePort,
} from '@treewarden/engine';
import { failure, success, ToolError, type ToolResult } from './tool-result.js';

interface PortInput {
  readonly port: number;
  readonly udp?: boolean | undefined;
}

const protoOf = (input: PortInput) => (input.udp === true ? 'udp' : 'tcp');

function listenerRows(rows: readonly PortRow[]) {
  return rows.map(({ address, port, proto, pid, startTime, args, runId }) => ({
    address,
    port,
    proto,
    pid,
    startTime,
    args: [...args],
    runId,
  }));
}

export async function whoListens(input: PortInput): Promise<ToolResult> {
  const port = assertPort(input.port);
  const proto = protoOf(input);
  const map = await createPortReader().readAll();
  if (map === null) throw new ToolError('no port map could be read (a socket table or lsof failed); try again');
  const onPort = map.listeners.filter((listener) => listener.port === port && listener.proto === proto);
  const rows = describeListeners(onPort, await createEntryLookup());
  const hidden = map.unattributed.filter((socket) => socket.port === port && socket.proto === proto).length;
  return success({
    port,
    proto,
    listeners: listenerRows(rows),
    ...(hidden > 0 ? { hiddenHolders: hidden } : {}),
  });
}

function planFields(plan: FreePortPlan) {
  return {
    port: plan.port,
    proto: plan.proto,
    listeners: listenerRows(plan.listeners),
    wouldEnd: plan.targets.flatMap((target) =>
      target.tree.map(({ pid, startTime, args }) => ({ pid, startTime, args: [...args] })),
    ),
    refusals: [...plan.refusals],
    expect: plan.targets.map(({ identity }) => ({ pid: identity.pid, startTime: identity.startTime })),
  };
}

export interface FreePortInput extends PortInput {
  readonly confirm: boolean;
  readonly expect?: readonly ProcessIdentity[] | undefined;
}

/**
 * A preview and its confirm are two reads of the port: the holder may have been replaced between
 * them. confirm:true therefore needs the preview's `expect`, and the plan is pinned to it as the
 * CLI's `--expect` pins `--yes`: a holder the preview never showed refuses the whole call.
 */
export async function freePort(input: FreePortInput): Promise<ToolResult> {
  const port = assertPort(input.port);
  if (input.confirm && input.expect === undefined)
    throw new ToolError('confirm:true needs `expect`: call with confirm:false first and pass back its `expect`');
  const read = await planFreePort(port, protoOf(input));
  const { plan, changes } =
    input.expect === undefined ? { plan: read, changes: [] } : pinFreePortPlan(read, input.expect);
  const fields = { ...planFields(plan), ...(changes.length > 0 ? { changes: [...changes] } : {}) };
  const empty = { survivors: [], stillListening: [] };
  if (plan.refusals.length > 0)
    return failure(`refused, nothing was signalled: ${plan.refusals.join('; ')}`, {
      ...fields,
      result: 'refused',
      ...empty,
    });
  if (plan.targets.length === 0) return success({ ...fields, result: 'nothing_listening', ...empty });
  if (!input.confirm) return success({ ...fields, result: 'preview', ...empty });
  const outcome = await executeFreePort(plan);
  const structured = {
    ...fields,
    result: outcome.result,
    survivors: outcome.outcomes.flatMap((kill) => kill.survivors.map(({ pid, startTime }) => ({ pid, startTime }))),
    stillListening: outcome.stillListening.map(({ pid, startTime }) => ({ pid, startTime })),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
  return outcome.result === 'freed' || outcome.result === 'nothing_listening'
    ? success(structured)
    : failure(
        `port ${port}/${plan.proto} not freed: ${outcome.result}${outcome.error ? `: ${outcome.error}` : ''}`,
        structured,
      );
}
