import { describe, expect, it } from 'vitest';
import { createRunDir, isInsideDir, resolveStateDir, statePaths } from '../../src/state/state-dir.js';

describe('state dir', () => {
  it('prefers $TREEWARDEN_HOME, then $XDG_STATE_HOME, then ~/.local/state', () => {
    expect(resolveStateDir({ TREEWARDEN_HOME: '/tw', XDG_STATE_HOME: '/xdg', HOME: '/h' })).toBe('/tw');
    expect(resolveStateDir({ XDG_STATE_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/treewarden');
    expect(resolveStateDir({ HOME: '/h' })).toBe('/h/.local/state/treewarden');
    // XDG: a relative XDG_STATE_HOME is invalid and ignored.
    expect(resolveStateDir({ XDG_STATE_HOME: 'rel', HOME: '/h' })).toBe('/h/.local/state/treewarden');
  });

  it('refuses a relative $TREEWARDEN_HOME with a message saying how to fix it', () => {
    expect(() => resolveStateDir({ TREEWARDEN_HOME: 'rel' })).toThrow(/must be an absolute path/);
  });

  it('lays out the ledger, leases and runs under the root', () => {
    expect(statePaths('/s')).toEqual({
      root: '/s',
      ledgerFile: '/s/ledger.jsonl',
      leasesDir: '/s/leases',
      runsDir: '/s/runs',
    });
  });

  it('refuses a run id that could escape the runs dir', () => {
    expect(() => createRunDir(statePaths('/nonexistent'), '../etc')).toThrow(/may only contain/);
  });

  it('tells a path inside a dir from a sibling with the same prefix', () => {
    expect(isInsideDir('/a/b', '/a/b')).toBe(true);
    expect(isInsideDir('/a/b/c', '/a/b')).toBe(true);
    expect(isInsideDir('/a/bc', '/a/b')).toBe(false);
  });
});
