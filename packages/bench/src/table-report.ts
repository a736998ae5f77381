/** The table bench's markdown: per-size timings, the user/system split and the targets. */
import { NAMES } from './table-names.js';
import { formatMs, formatRatio, markdownTable } from './util.js';

export interface Split {
  readonly userMs: number;
  readonly systemMs: number;
}

export interface SizeResult {
  readonly extra: number;
  readonly processes: number;
  readonly medians: ReadonlyMap<string, number>;
  readonly split: ReadonlyMap<string, Split>;
  /** Host polls that gave no table (the worker's read bound passed); their times are not reads. */
  readonly hostFailures: number;
  /** Empty where polling was not measured (the large sizes). */
  readonly polling: ReadonlyMap<string, number>;
}

/** Issue 19's targets. */
const TARGET_SNAPSHOT_VS_FLOOR = 1.2;
/**
 * A first read must read what a warm one keeps (argv, owner, cwd), so it is judged against those
 * reads' own syscall loops: stat + cmdline, the cwd readlinks and the owner stats.
 */
const TARGET_COLD_VS_ITS_FLOOR = 1.3;
/** Earlier issues' targets, kept. */
const TARGET_TREE_SPEEDUP = 20;
const TREE_TARGET_AT = 5_000;
const TARGET_POLL_SHARE_OF_PS_LIST = 1 / 3;

const mark = (ok: boolean): string => (ok ? 'met' : 'MISSED');
const about = (extra: number): string => `~${extra.toLocaleString('en-US')}`;
const ms = (result: SizeResult, name: string): number => result.medians.get(name) ?? Number.NaN;

export function renderSize(result: SizeResult): string {
  const floor = ms(result, NAMES.floor);
  const ours = ms(result, NAMES.snapshot);
  const rows = [...result.medians].map(([name, median]) => [
    name,
    formatMs(median),
    formatRatio(median / floor),
    formatRatio(median / ours),
    result.polling.has(name) ? `${(result.polling.get(name) ?? 0).toFixed(2)} %` : '—',
  ]);
  const title = `#### ${about(result.extra)} extra processes (${result.processes} in the table)`;
  const headers = ['reader', 'median ms', '× the floor', '× our snapshot', 'CPU polling 1/s (% of a core)'];
  return `${title}\n\n${markdownTable(headers, rows)}`;
}

export function renderSplit(results: readonly SizeResult[]): string {
  const rows = results.flatMap((result) =>
    [...result.split].map(([name, split]) => [
      about(result.extra),
      name,
      formatMs(ms(result, name)),
      formatMs(split.userMs),
      formatMs(split.systemMs),
    ]),
  );
  const notes = results.map((result) => {
    const ours = result.split.get(NAMES.snapshot);
    const floor = result.split.get(NAMES.floor);
    const cwd = result.split.get(NAMES.cwd);
    if (ours === undefined || floor === undefined || cwd === undefined) return '';
    return `- ${about(result.extra)}: the snapshot spends ${formatMs(ours.userMs - floor.userMs)} ms more user CPU and ${formatMs(ours.systemMs - floor.systemMs)} ms more system CPU than the floor; the cwd readlinks alone cost ${formatMs(cwd.userMs + cwd.systemMs)} ms.`;
  });
  return `${markdownTable(['extra processes', 'reader', 'median ms', 'user ms', 'system ms'], rows)}\n\n${notes.join('\n')}`;
}

export function renderTargets(results: readonly SizeResult[]): string {
  const rows = results.map((result) => {
    const ours = ms(result, NAMES.snapshot);
    const floor = ms(result, NAMES.floor);
    const cold = ms(result, NAMES.cold);
    const coldFloor = ms(result, NAMES.cmdline) + ms(result, NAMES.cwd) + ms(result, NAMES.owner);
    const tree = ms(result, NAMES.tree);
    const host = ms(result, NAMES.host);
    const psList = result.polling.get(NAMES.psList);
    const pollShare = psList === undefined ? null : (result.polling.get(NAMES.snapshot) ?? 0) / psList;
    return [
      about(result.extra),
      `${formatRatio(ours / floor)} (${mark(ours / floor <= TARGET_SNAPSHOT_VS_FLOOR)})`,
      `${formatRatio(cold / coldFloor)} (${mark(cold / coldFloor <= TARGET_COLD_VS_ITS_FLOOR)}; ${formatRatio(cold / ours)} the warm one)`,
      // The owned-refresh target is set for 100 owned among ~5,000; elsewhere it is shown only.
      `${formatRatio(ours / tree)} cheaper${result.extra === TREE_TARGET_AT ? ` (${mark(ours / tree >= TARGET_TREE_SPEEDUP)})` : ''}`,
      pollShare === null
        ? '—'
        : `${formatRatio(pollShare)} of ps-list (${mark(pollShare <= TARGET_POLL_SHARE_OF_PS_LIST)})`,
      `${formatMs(host)} ms = ${formatRatio(host / ours)} the snapshot${result.hostFailures > 0 ? ` (${result.hostFailures} polls gave no table: worker bound passed)` : ''}`,
    ];
  });
  const headers = [
    'extra processes',
    `warm snapshot vs the floor (≤ ${TARGET_SNAPSHOT_VS_FLOOR}×)`,
    `cold snapshot vs its syscall floor: stat + cmdline + cwd + owner loops (≤ ${TARGET_COLD_VS_ITS_FLOOR}×)`,
    `owned refresh vs snapshot (≥ ${TARGET_TREE_SPEEDUP}× at ~5,000)`,
    'polling CPU vs ps-list (≤ 0.33×)',
    'host system-view poll (shown)',
  ];
  return markdownTable(headers, rows);
}
