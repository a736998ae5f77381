/**
 * Terminal rendering of scenarios: the list, each step as it happens (with its time), and the
 * closing summary of expected against actual. Plain text, no colours: it also goes to logs.
 */
import { describePreview } from './agents/pkill-preview.js';
import type { ScenarioSummary } from './catalog.js';
import { shortenCommandLine } from './census.js';
import type { ScenarioResult, ScenarioStep, SurvivorInfo } from './result.js';

const WRAP_COLUMNS = 100;
/** Continuation lines of "  Naive tool: …" line up under the text. */
const HANGING = ' '.repeat('  Naive tool: '.length);

/** Word-wraps `text` to WRAP_COLUMNS; the first line after `indent`, the rest after `hanging`. */
function wrap(text: string, indent: string, hanging = indent): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const prefix = lines.length === 0 ? indent : hanging;
    if (line.length > 0 && prefix.length + line.length + word.length + 1 > WRAP_COLUMNS) {
      lines.push(`${prefix}${line}`);
      line = word;
    } else line = line.length === 0 ? word : `${line} ${word}`;
  }
  if (line.length > 0) lines.push(`${lines.length === 0 ? indent : hanging}${line}`);
  return lines.join('\n');
}

export function formatStep(step: ScenarioStep): string {
  return `${`+${step.atMs}`.padStart(7)} ms  ${step.text}`;
}

export function formatScenarioList(scenarios: readonly ScenarioSummary[]): string {
  const width = Math.max(...scenarios.map((scenario) => scenario.name.length));
  const lines = scenarios.map((scenario) => {
    const expected = `→ ${scenario.expected.classification}`;
    const note = scenario.available ? '' : `  [unavailable: ${scenario.unavailableReason}]`;
    return `  ${scenario.name.padEnd(width)}  ${scenario.title} ${expected}${note}`;
  });
  return ['Scenarios (treewarden scenario run NAME [--naive] [--json]):', ...lines].join('\n');
}

/** The header printed before the steps: what the scenario shows and what to expect. */
export function formatScenarioIntro(summary: ScenarioSummary, naive: boolean): string {
  return [
    `${summary.title}  [${summary.name}${naive ? ', naive' : ''}]`,
    wrap(summary.explanation, '  '),
    wrap(`Naive tool: ${summary.naiveFailure}`, '  ', HANGING),
    wrap(`Treewarden: ${summary.treewardenFix}`, '  ', HANGING),
    `  Expected:   ${summary.expected.classification}, ${summary.expected.nothingSurvives ? 'nothing survives' : 'survivors remain'}` +
      ` (bounds: ${summary.bounds.maxProcesses} processes, ${summary.bounds.maxMs} ms)`,
    '',
  ].join('\n');
}

function formatSurvivors(survivors: readonly SurvivorInfo[]): string[] {
  return survivors.map(
    (survivor) => `    ${survivor.pid}  ${shortenCommandLine(survivor.command)}  (found by its ${survivor.why})`,
  );
}

export function formatScenarioResult(result: ScenarioResult): string {
  if (!result.available) return `SKIPPED ${result.name}: ${result.skippedReason}`;
  const lines: string[] = [''];
  const actual = `${result.actual.classification ?? 'none'}, ${
    result.actual.nothingSurvives ? 'nothing survived' : `${result.survivors.length} survived`
  }`;
  lines.push(
    `  Expected: ${result.expected.classification}, ${result.expected.nothingSurvives ? 'nothing survives' : 'survivors remain'}`,
  );
  lines.push(`  ${result.mode === 'naive' ? 'Naive:   ' : 'Actual:  '} ${actual}`);
  const previews = result.outcome?.pkill ?? [];
  if (previews.length > 0) lines.push('  pkill -f, computed on the table and never run:');
  for (const preview of previews) lines.push(wrap(describePreview(preview), '    ', '      '));
  if (result.survivors.length > 0) {
    lines.push(`  ${result.mode === 'naive' ? 'Left alive by the naive approach:' : 'Survivors:'}`);
    lines.push(...formatSurvivors(result.survivors));
  }
  if (result.cleanup !== null && result.cleanup.found > 0) {
    lines.push(
      `  Engine cleanup: ended ${result.cleanup.found - result.cleanup.survivors.length} of ${result.cleanup.found} in ${result.cleanup.durationMs} ms`,
    );
  }
  if (result.cleanup !== null && result.cleanup.survivors.length > 0) {
    lines.push('  STILL ALIVE after cleanup:', ...formatSurvivors(result.cleanup.survivors));
  }
  if (result.mode === 'naive' && result.checks.length > 0)
    lines.push('  Checks (the naive approach is expected to fail some):');
  for (const check of result.checks) lines.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  if (result.boundsExceeded !== null) lines.push(`  Bound exceeded: ${result.boundsExceeded}`);
  if (result.interrupted) lines.push('  Interrupted: everything the scenario started was ended.');
  lines.push(`  Peak processes: ${result.peakProcesses}; took ${result.durationMs} ms`);
  const verdict =
    result.mode === 'naive'
      ? result.passed
        ? 'NAIVE DEMO DONE: the engine cleaned up what the naive approach left'
        : 'NAIVE DEMO FAILED: cleanup did not finish'
      : result.passed
        ? 'PASS: outcome as expected'
        : 'FAIL: outcome differs from the expectation';
  lines.push(`  ${verdict}`);
  return lines.join('\n');
}
