/**
 * The New Run form's optional runaway limits. Empty fields set no limit; the values are
 * read by the protocol's strict `parseLimitText` (the CLI's flags use the same) and checked
 * against the protocol's schema (the engine's bounds, mirrored) before the command is sent.
 */
import { type LimitTextKind, parseLimitText, type RunLimitsInput, runLimitsSchema } from '@treewarden/protocol';

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

/** How each field is read: the protocol's strict parser, the one the CLI's flags use. */
const KIND_OF_FIELD: Readonly<Record<keyof LimitTexts, LimitTextKind>> = {
  memoryMiB: 'mebibytes',
  procs: 'count',
  cpuSeconds: 'seconds',
  idleSeconds: 'seconds',
};

type FieldNumbers = Record<keyof LimitTexts, number | undefined>;

/** Each field's number (an empty field is none), or the first field's problem. */
function readNumbers(texts: LimitTexts): { numbers: FieldNumbers } | { error: string } {
  const numbers: FieldNumbers = {
    memoryMiB: undefined,
    procs: undefined,
    cpuSeconds: undefined,
    idleSeconds: undefined,
  };
  for (const key of Object.keys(KIND_OF_FIELD) as (keyof LimitTexts)[]) {
    if (texts[key] === '') continue;
    const parsed = parseLimitText(KIND_OF_FIELD[key], texts[key]);
    if (!parsed.ok) return { error: `${LABELS[key]} ${JSON.stringify(texts[key])} ${parsed.problem}.` };
    numbers[key] = parsed.value;
  }
  return { numbers };
}

/** The limits to send, or a message naming the field that is wrong. */
export function readLimits(texts: LimitTexts): { limits?: RunLimitsInput; error?: string } {
  const read = readNumbers(texts);
  if ('error' in read) return { error: read.error };
  const { numbers } = read;
  const candidate = {
    maxMemoryBytes: numbers.memoryMiB === undefined ? undefined : Math.floor(numbers.memoryMiB * BYTES_PER_MEBIBYTE),
    maxProcs: numbers.procs,
    maxCpuSeconds: numbers.cpuSeconds,
    idleTimeoutSeconds: numbers.idleSeconds,
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
