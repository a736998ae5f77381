import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../src/model/split-command';

function argv(line: string): string[] {
  const result = splitCommandLine(line);
  if (!result.ok) throw new Error(result.error);
  return result.argv;
}

function error(line: string): string {
  const result = splitCommandLine(line);
  if (result.ok) throw new Error(`expected "${line}" to be refused, got ${JSON.stringify(result.argv)}`);
  return result.error;
}

describe('splitCommandLine', () => {
  it('splits a command line typed in one field into program and arguments', () => {
    expect(argv('sleep 200')).toEqual(['sleep', '200']);
    expect(argv('  node   worker.mjs\t--verbose ')).toEqual(['node', 'worker.mjs', '--verbose']);
  });

  it('keeps quoted words whole, as a shell would', () => {
    expect(argv(`sh -c 'sleep 1; echo "done"'`)).toEqual(['sh', '-c', 'sleep 1; echo "done"']);
    expect(argv(`echo "a b" 'c d' e\\ f`)).toEqual(['echo', 'a b', 'c d', 'e f']);
    expect(argv(`echo "say \\"hi\\"" "back\\\\slash" "keep \\n"`)).toEqual([
      'echo',
      'say "hi"',
      'back\\slash',
      'keep \\n',
    ]);
    expect(argv(`printf '' x`)).toEqual(['printf', '', 'x']);
    expect(argv(`a"b"'c'`)).toEqual(['abc']);
  });

  it('expands nothing: variables, globs and tildes reach the program as typed', () => {
    expect(argv('echo $HOME ~/x *.txt')).toEqual(['echo', '$HOME', '~/x', '*.txt']);
  });

  it('refuses shell operators with a message that says how to get a shell', () => {
    for (const line of ['ls | wc', 'make && make test', 'a; b', 'cat < in', 'echo > out', 'sleep 9 &', 'echo $(id)']) {
      expect(error(line)).toMatch(/shell syntax.*sh -c/);
    }
    expect(argv(`echo '|' "&&" \\;`)).toEqual(['echo', '|', '&&', ';']);
  });

  it('refuses an unclosed quote and a trailing backslash', () => {
    expect(error(`echo 'open`)).toBe('a single quote is not closed');
    expect(error(`echo "open`)).toBe('a double quote is not closed');
    expect(error('echo \\')).toBe('the line ends with a lone backslash');
  });

  it('gives no words for an empty line', () => {
    expect(argv('   ')).toEqual([]);
  });
});
