/** Breadth of agent rules: the built-in rules pass; the live table's share is checked when given. */
import { describe, expect, it } from 'vitest';
import { ruleBreadthProblems } from '../../src/agents/rule-breadth.js';
import { builtinRulesFile } from '../../src/agents/rules.js';
import { readProcTable } from '../../src/table/index.js';

const liveArgvs = () =>
  [...readProcTable().entries.values()].filter((entry) => entry.args.length > 0).map((entry) => entry.args);

describe('ruleBreadthProblems', () => {
  it.skipIf(process.platform !== 'linux')(
    'finds nothing too broad in the built-in rules, on this live table too',
    () => {
      expect(ruleBreadthProblems(builtinRulesFile(), liveArgvs())).toEqual([]);
    },
  );

  it('refuses a shape that matches most of the live table, and ignores a table too small to say', () => {
    const file = {
      version: 1 as const,
      agents: [{ id: 'wide', name: 'Wide', roots: [{ argv0: '^/opt/tool/' }], markers: [] }],
    };
    const table = Array.from({ length: 30 }, (_, i) => (i < 20 ? ['/opt/tool/bin', String(i)] : ['bash']));
    expect(ruleBreadthProblems(file, table)).toEqual([
      'agent "wide" roots[0] (argv0 "^/opt/tool/") is too broad: it matches 20 of the 30 live processes',
    ]);
    expect(ruleBreadthProblems(file, table.slice(0, 10))).toEqual([]);
  });
});
