/**
 * `--max-memory SIZE --max-procs N --max-cpu S --idle-timeout S --cgroup` → the RunSpec's limits.
 * Only the syntax is checked here; the bounds are the engine's (`validateRunSpec`), so the CLI,
 * leases and the app refuse the same values with the same message.
 */
import { parseSize, type RunLimits, type RunSpec, RunSpecError } from '@treewarden/engine';
import { parseSeconds } from './args.js';
import { UsageError } from './commands/command.js';

export interface LimitFlagValues {
  readonly 'max-memory'?: string;
  readonly 'max-procs'?: string;
  readonly 'max-cpu'?: string;
  readonly 'idle-timeout'?: string;
  readonly cgroup?: boolean;
}

function parseCount(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`${flag} ${JSON.stringify(raw)} is not a whole number`);
  return Number(raw);
}

function parseMemory(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseSize(raw);
  } catch (error) {
    if (error instanceof RunSpecError) throw new UsageError(error.message);
    throw error;
  }
}

export function parseLimitFlags(values: LimitFlagValues): Pick<RunSpec, 'limits' | 'cgroup'> {
  const given: { -readonly [K in keyof RunLimits]: number | undefined } = {
    maxMemoryBytes: parseMemory(values['max-memory']),
    maxProcs: parseCount('max-procs', values['max-procs']),
    maxCpuSeconds: parseSeconds('max-cpu', values['max-cpu']),
    idleTimeoutSeconds: parseSeconds('idle-timeout', values['idle-timeout']),
  };
  const limits = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as RunLimits;
  return {
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(values.cgroup === true ? { cgroup: true } : {}),
  };
}
