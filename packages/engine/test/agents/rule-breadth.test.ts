/** Breadth of agent rules: the built-in rules pass; the live table's share is checked when given. */
import { describe, expect, it } from 'vitest';
import { markerNamesOf, ruleBreadthProblems } from '../../src/agents/rules/rule-breadth.js';
import { builtinRulesFile } from '../../src/agents/rules/rules.js';
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

  it('refuses a marker most live processes here carry (NODE_EXTRA_CA_CERTS set machine-wide), judged on the live environments', () => {
    const file = {
      version: 1 as const,
      agents: [
        {
          id: 'ca',
          name: 'CA',
          roots: [{ argv0: '(^|/)my-agent$' }],
          markers: [{ name: 'NODE_EXTRA_CA_CERTS' }, { name: 'MY_AGENT_RUN' }],
        },
      ],
    };
    const envs = Array.from(
      { length: 30 },
      (_, i) =>
        new Map([['NODE_EXTRA_CA_CERTS', '/etc/ssl/ca.crt'], ...(i < 2 ? [['MY_AGENT_RUN', '1']] : [])] as [
          string,
          string,
        ][]),
    );
    expect(markerNamesOf(file)).toEqual(new Set(['NODE_EXTRA_CA_CERTS', 'MY_AGENT_RUN']));
    expect(ruleBreadthProblems(file, [], envs)).toEqual([
      'agent "ca" markers[0] (name "NODE_EXTRA_CA_CERTS") is too broad: 30 of the 30 live processes here carry NODE_EXTRA_CA_CERTS; a marker must be a variable the agent puts on its own children (e.g. CLAUDECODE)',
    ]);
    // Too few environments to judge a share: no verdict from them (the fixed list still applies).
    expect(ruleBreadthProblems(file, [], envs.slice(0, 5))).toEqual([]);
  });
});
