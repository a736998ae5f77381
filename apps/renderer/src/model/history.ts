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
  /** The book's pass that last wrote here (the book drops rings a pass did not reach). */
  pass = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError(`ring capacity ${capacity} is below 2`);
    // One buffer, three views: a 20,000-process table makes a ring per process, and each buffer
    // allocation costs far more than a view on one.
    const buffer = new ArrayBuffer(capacity * 3 * Float32Array.BYTES_PER_ELEMENT);
    this.times = new Float32Array(buffer, 0, capacity);
    this.cpu = new Float32Array(buffer, capacity * Float32Array.BYTES_PER_ELEMENT, capacity);
    this.memory = new Float32Array(buffer, 2 * capacity * Float32Array.BYTES_PER_ELEMENT, capacity);
  }

  get size(): number {
    return this.count;
  }

  push(sample: Sample): void {
    this.pushValues(sample.atMs, sample.cpuPercent, sample.memoryBytes);
  }

  /** push() without a Sample object (the system pass calls it once per process). */
  pushValues(atMs: number, cpuPercent: number | null, memoryBytes: number): void {
    if (this.count === 0) this.baseMs = atMs;
    this.times[this.next] = (atMs - this.baseMs) / 1000;
    // NaN marks "unknown" in the Float32 ring (a real percent is never NaN).
    this.cpu[this.next] = cpuPercent ?? Number.NaN;
    this.memory[this.next] = memoryBytes / BYTES_PER_MIB;
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

  /** CPU % of the i-th sample (oldest first), without building a Sample; NaN when unknown or outside. */
  cpuAt(i: number): number {
    if (i < 0 || i >= this.count) return Number.NaN;
    return this.cpu[(this.next - this.count + i + this.capacity) % this.capacity] as number;
  }

  /** Memory (bytes) of the i-th sample, oldest first; NaN outside. */
  memoryAt(i: number): number {
    if (i < 0 || i >= this.count) return Number.NaN;
    return (this.memory[(this.next - this.count + i + this.capacity) % this.capacity] as number) * BYTES_PER_MIB;
  }

  /** Time of the i-th sample, oldest first; NaN outside. */
  timeAt(i: number): number {
    if (i < 0 || i >= this.count) return Number.NaN;
    return this.baseMs + (this.times[(this.next - this.count + i + this.capacity) % this.capacity] as number) * 1000;
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
  private readonly rings = new Map<string, SampleRing>();
  private newestAtMs: number | null = null;
  private pass = 0;

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
   * The rings are updated in place (a pass over 20,000 processes must not rebuild the map): each
   * ring remembers the pass that reached it, and the rest are deleted after the pass.
   */
  recordPass(
    atMs: number,
    entries: Iterable<readonly [string, number | null, number]>,
    kept: Iterable<string> = [],
  ): boolean {
    return this.recordEach(
      atMs,
      (record) => {
        for (const [key, cpuPercent, memoryBytes] of entries) record(key, cpuPercent, memoryBytes);
      },
      kept,
    );
  }

  /**
   * The ring of `key`, made when missing: the system spreads its pass over polls and samples
   * through the rings it holds (store/system-sampling.ts); it drops the rings of processes that
   * left itself (forget, retain), and says when it sampled (noteSampled).
   */
  ringFor(key: string): SampleRing {
    let ring = this.rings.get(key);
    if (ring === undefined) {
      ring = new SampleRing(this.capacity);
      this.rings.set(key, ring);
    }
    return ring;
  }

  noteSampled(atMs: number): void {
    this.newestAtMs = atMs;
  }

  forget(key: string): void {
    this.rings.delete(key);
  }

  /** Drops every ring whose key `keep` refuses (a full table replaced the old one). */
  retain(keep: (key: string) => boolean): void {
    for (const key of this.rings.keys()) if (!keep(key)) this.rings.delete(key);
  }

  /**
   * recordPass for callers that hold the values already (the system table): `each` calls
   * `record` once per key, so no entry tuple is built per process.
   */
  recordEach(
    atMs: number,
    each: (record: (key: string, cpuPercent: number | null, memoryBytes: number) => void) => void,
    kept: Iterable<string> = [],
  ): boolean {
    const newest = this.newestAtMs;
    if (newest !== null && atMs - newest < this.minIntervalMs) return false;
    const pass = ++this.pass;
    each((key, cpuPercent, memoryBytes) => {
      let ring = this.rings.get(key);
      if (ring === undefined) {
        ring = new SampleRing(this.capacity);
        this.rings.set(key, ring);
      } else if (ring.pass === pass) return; // one sample per key and pass
      ring.pushValues(atMs, cpuPercent, memoryBytes);
      ring.pass = pass;
    });
    for (const key of kept) {
      const ring = this.rings.get(key);
      if (ring !== undefined) ring.pass = pass;
    }
    // Deleting the current entry while iterating a Map is safe: iteration goes on with the next.
    for (const [key, ring] of this.rings) if (ring.pass !== pass) this.rings.delete(key);
    this.newestAtMs = atMs;
    return true;
  }
}
