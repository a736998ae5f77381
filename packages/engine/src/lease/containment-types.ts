/**
 * The containment interface on its own, so each platform's implementation (subreaper-linux.ts)
 * and the factory that picks one (containment.ts) both depend on it without depending on each
 * other.
 */
export interface Containment {
  readonly kind: 'linux-subreaper' | 'windows-job' | 'none';
  /** True once the platform mechanism is in force for this process. */
  readonly active: boolean;
  /** Called for each run root the guardian spawned (the Job Object needs to assign it). */
  adopt(pid: number): void;
  /**
   * Reaps adopted orphans that are zombies, by pid (never `waitpid(-1)`, which would steal exit
   * statuses from libuv's own children). `zombiePids` must exclude the guardian's spawned runs.
   * Returns the pids reaped.
   */
  reap(zombiePids: readonly number[]): number[];
}
