/**
 * Resource history: CPU % and memory over time, from the samples the host already sends (each
 * snapshot and each system diff carries CPU and memory per process). No extra reads: a bounded
 * ring per identity (or per run), so memory stays flat however long the app runs.
 */

/** Run trees: one sample per snapshot, 10 minutes at the default 1 s poll. */
export const RUN_HISTORY_CAPACITY = 600;
/**
 * The system view holds thousands of identities: it keeps one sample per SYSTEM_SAMPLE_MIN_MS,
 * still 10 minutes of history (what the flag thresholds look back over) in ~12 B × 120 each.
 */
export const SYSTEM_HISTORY_CAPACITY = 120;
export const SYSTEM_SAMPLE_MIN_MS = 5000;

export interface Sample {
  readonly atMs: number;
  /** Null = unknown (the host's first sight of a process): curves leave a gap, never a 0. */
  readonly cpuPercent: number | null;
  readonly memoryBytes: number;
}

const BYTES_PER_MIB = 1024 * 1024;

function knownOrNull(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}

/**
 * Fixed-capacity ring of samples, oldest overwritten first. Times are stored relative to the
 * first sample (Float32 seconds keep 0.1 s precision for days) and memory in MiB, so a sample
 * costs 12 bytes.
 */
export class SampleRing {
  private readonly times: Float32Array;
  private readonly cpu: Float32Array;
  private readonly memory: Float32Array;
  private baseMs = 0;
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError(`ring capacity ${capacity} is below 2`);
    this.times = new Float32Array(capacity);
    this.cpu = new Float32Array(capacity);
    this.memory = new Float32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(sample: Sample): void {
    if (this.count === 0) this.baseMs = sample.atMs;
    this.times[this.next] = (sample.atMs - this.baseMs) / 1000;
    // NaN marks "unknown" in the Float32 ring (a real percent is never NaN).
    this.cpu[this.next] = sample.cpuPercent ?? Number.NaN;
    this.memory[this.next] = sample.memoryBytes / BYTES_PER_MIB;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** The i-th sample, oldest first (0 … size − 1); undefined outside. */
  at(i: number): Sample | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const index = (this.next - this.count + i + this.capacity) % this.capacity;
    return {
      atMs: this.baseMs + (this.times[index] as number) * 1000,
      cpuPercent: knownOrNull(this.cpu[index] as number),
      memoryBytes: (this.memory[index] as number) * BYTES_PER_MIB,
    };
  }

  /** Time of the newest sample; null when empty. */
  lastAtMs(): number | null {
    if (this.count === 0) return null;
    const index = (this.next - 1 + this.capacity) % this.capacity;
    return this.baseMs + (this.times[index] as number) * 1000;
  }

  /** Oldest first. */
  samples(): Sample[] {
    const result: Sample[] = [];
    const start = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i += 1) {
      const index = (start + i) % this.capacity;
      result.push({
        atMs: this.baseMs + (this.times[index] as number) * 1000,
        cpuPercent: knownOrNull(this.cpu[index] as number),
        memoryBytes: (this.memory[index] as number) * BYTES_PER_MIB,
      });
    }
    return result;
  }
}

/**
 * Rings by key (`pid:startTime`, `run:<id>` for a run's totals, `session:<id>` for an agent
 * session's); keys neither seen nor kept in a pass are dropped.
 */
export class HistoryBook {
  private rings = new Map<string, SampleRing>();
  private newestAtMs: number | null = null;

  constructor(
    readonly capacity: number,
    /** Samples closer together than this are skipped (0: keep every one). */
    readonly minIntervalMs = 0,
  ) {}

  get size(): number {
    return this.rings.size;
  }

  ring(key: string): SampleRing | undefined {
    return this.rings.get(key);
  }

  /**
   * Records one pass (one snapshot or one system table) taken at `atMs`: a sample per key, and
   * forgets keys that are gone, so a recycled pid starts a new history. `kept` keys get no sample
   * but keep the curve they have (an ended session still shown). False when skipped.
   */
  recordPass(
    atMs: number,
    entries: Iterable<readonly [string, number | null, number]>,
    kept: Iterable<string> = [],
  ): boolean {
    const newest = this.newestAtMs;
    if (newest !== null && atMs - newest < this.minIntervalMs) return false;
    const next = new Map<string, SampleRing>();
    for (const [key, cpuPercent, memoryBytes] of entries) {
      if (next.has(key)) continue; // one sample per key and pass
      const ring = this.rings.get(key) ?? new SampleRing(this.capacity);
      ring.push({ atMs, cpuPercent, memoryBytes });
      next.set(key, ring);
    }
    for (const key of kept) {
      const ring = this.rings.get(key);
      if (ring !== undefined && !next.has(key)) next.set(key, ring);
    }
    this.rings = next;
    this.newestAtMs = atMs;
    return true;
  }
}
