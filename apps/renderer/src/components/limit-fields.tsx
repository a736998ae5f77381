/**
 * The New Run form's optional runaway limits. Empty fields set no limit; the values are checked
 * against the protocol's schema (the engine's bounds, mirrored) before the command is sent.
 */
import { type RunLimitsInput, runLimitsSchema } from '@treewarden/protocol';

const BYTES_PER_MEBIBYTE = 1024 * 1024;

export interface LimitTexts {
  memoryMiB: string;
  procs: string;
  cpuSeconds: string;
  idleSeconds: string;
}

export const NO_LIMITS: LimitTexts = { memoryMiB: '', procs: '', cpuSeconds: '', idleSeconds: '' };

const LABELS: Record<keyof LimitTexts, string> = {
  memoryMiB: 'Max memory (MiB)',
  procs: 'Max processes',
  cpuSeconds: 'Max CPU (s)',
  idleSeconds: 'Idle timeout (s)',
};

/** The protocol's key → the field that sets it, so an error names what the user typed into. */
const FIELD_OF_KEY: Readonly<Record<string, keyof LimitTexts>> = {
  maxMemoryBytes: 'memoryMiB',
  maxProcs: 'procs',
  maxCpuSeconds: 'cpuSeconds',
  idleTimeoutSeconds: 'idleSeconds',
};

function numberOrUndefined(text: string): number | undefined | null {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** The limits to send, or a message naming the field that is wrong. */
export function readLimits(texts: LimitTexts): { limits?: RunLimitsInput; error?: string } {
  const numbers = {
    memoryMiB: numberOrUndefined(texts.memoryMiB),
    procs: numberOrUndefined(texts.procs),
    cpuSeconds: numberOrUndefined(texts.cpuSeconds),
    idleSeconds: numberOrUndefined(texts.idleSeconds),
  };
  for (const [key, value] of Object.entries(numbers)) {
    if (value === null) return { error: `${LABELS[key as keyof LimitTexts]} is not a number.` };
  }
  const candidate = {
    maxMemoryBytes:
      numbers.memoryMiB === undefined ? undefined : Math.floor((numbers.memoryMiB ?? 0) * BYTES_PER_MEBIBYTE),
    maxProcs: numbers.procs ?? undefined,
    maxCpuSeconds: numbers.cpuSeconds ?? undefined,
    idleTimeoutSeconds: numbers.idleSeconds ?? undefined,
  };
  const given = Object.fromEntries(Object.entries(candidate).filter(([, value]) => value !== undefined));
  if (Object.keys(given).length === 0) return {};
  const parsed = runLimitsSchema.safeParse(given);
  if (!parsed.success) {
    const key = String(parsed.error.issues[0]?.path[0] ?? '');
    const label = FIELD_OF_KEY[key] === undefined ? 'A limit' : LABELS[FIELD_OF_KEY[key]];
    return { error: `${label}: ${parsed.error.issues[0]?.message ?? 'out of bounds'}.` };
  }
  return { limits: parsed.data };
}

/** Two to a row: four number fields side by side do not fit the dialog. */
const FIELD_ROWS: readonly (readonly (keyof LimitTexts)[])[] = [
  ['memoryMiB', 'procs'],
  ['cpuSeconds', 'idleSeconds'],
];

export function LimitFields(props: { texts: LimitTexts; onChange(texts: LimitTexts): void }) {
  return (
    <div className="field">
      <span>Limits (optional; an empty field sets none)</span>
      {FIELD_ROWS.map((row) => (
        <div className="field-row" key={row.join()}>
          {row.map((key) => (
            <label className="field" key={key}>
              <span>{LABELS[key]}</span>
              <input
                name={key}
                type="number"
                min={0}
                value={props.texts[key]}
                placeholder="none"
                onChange={(e) => props.onChange({ ...props.texts, [key]: e.target.value })}
              />
            </label>
          ))}
        </div>
      ))}
    </div>
  );
}
