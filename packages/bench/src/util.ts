/**
 * Small helpers shared by the benchmark sections: round-robin timing (so background noise on a
 * shared 2-core machine lands on every contender alike), CPU accounting that includes reaped
 * children (the `ps` that ps-list spawns), and markdown tables.
 */
import { readFileSync } from 'node:fs';

export type Contender = () => unknown;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Runs every contender once per round, rotating the order each round; returns wall ms per run. */
export async function timeRounds(
  contenders: ReadonlyMap<string, Contender>,
  rounds: number,
): Promise<Map<string, number[]>> {
  const names = [...contenders.keys()];
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < names.length; i += 1) {
      const name = names[(i + round) % names.length] as string;
      const run = contenders.get(name) as Contender;
      const started = performance.now();
      await run();
      times.get(name)?.push(performance.now() - started);
    }
  }
  return times;
}

/** CPU ms of this process's reaped children so far (`cutime + cstime` of /proc/self/stat). */
export function childrenCpuMs(ticksPerSecond: number): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is stat field 3; cutime and cstime are fields 16 and 17.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}

/** CPU ms (this process + children it reaped meanwhile) spent by one call. */
export async function measureCpuMs(run: Contender, ticksPerSecond: number): Promise<number> {
  const ownBefore = process.cpuUsage();
  const childrenBefore = childrenCpuMs(ticksPerSecond);
  await run();
  const own = process.cpuUsage(ownBefore);
  return (own.user + own.system) / 1000 + childrenCpuMs(ticksPerSecond) - childrenBefore;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function formatMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function formatRatio(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
}

export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}
