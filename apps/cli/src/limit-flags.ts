/**
 * `--max-memory SIZE --max-procs N --max-cpu S --idle-timeout S --cgroup` → the RunSpec's limits.
 * Only the syntax is checked here (the protocol's strict `parseLimitText`, shared with the New Run form); the bounds are the engine's (`validateRunSpec`), so the CLI,
 * leases and the app refuse the same values with the same message.
 */
import type { RunLimits, RunSpec } from '@treewarden/engine';
import { parseFlagText, parseSeconds } from './args.js';

export interface LimitFlagValues {
  readonly 'max-memory'?: string;
  readonly 'max-procs'?: string;
  readonly 'max-cpu'?: string;
  readonly 'idle-timeout'?: string;
  readonly cgroup?: boolean;
}

export function parseLimitFlags(values: LimitFlagValues): Pick<RunSpec, 'limits' | 'cgroup'> {
  const given: { -readonly [K in keyof RunLimits]: number | undefined } = {
    maxMemoryBytes: parseFlagText('max-memory', 'size', values['max-memory']),
    maxProcs: parseFlagText('max-procs', 'count', values['max-procs']),
    maxCpuSeconds: parseSeconds('max-cpu', values['max-cpu']),
    idleTimeoutSeconds: parseSeconds('idle-timeout', values['idle-timeout']),
  };
  const limits = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as RunLimits;
  return {
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(values.cgroup === true ? { cgroup: true } : {}),
  };
}
