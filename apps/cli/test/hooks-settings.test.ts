/** The settings merge, pure: groups shared with other hooks, an earlier install from another path, Gemini's names. */
import { describe, expect, it } from 'vitest';
import { installHooks, isOurCommand, type Json, uninstallHooks } from '../src/commands/hooks-settings.js';

const OURS = '/usr/bin/node /opt/tw/apps/cli/dist/main.js hook claude';
const OLD = "'/home/me/old tw/bin/treewarden.js' hook claude";

describe('hooks settings merge', () => {
  it('takes only our hook out of a group it shares with another, and keeps the group', () => {
    const shared: Json = {
      hooks: {
        SessionEnd: [
          {
            matcher: '',
            hooks: [
              { type: 'command', command: 'log.sh' },
              { type: 'command', command: OURS },
            ],
          },
        ],
      },
    };
    const edit = uninstallHooks(shared, 'claude', OURS);
    expect(edit.changes).toEqual(['removed 1 SessionEnd hook']);
    expect(edit.doc).toEqual({
      hooks: { SessionEnd: [{ matcher: '', hooks: [{ type: 'command', command: 'log.sh' }] }] },
    });
  });

  it('replaces an entry of an earlier install from another path instead of adding a second', () => {
    const before: Json = { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: OLD }] }] } };
    const edit = installHooks(before, 'claude', OURS, false);
    expect(edit.changes[0]).toMatch(/^replaced SessionStart hook/);
    expect(JSON.stringify(edit.doc)).not.toContain('old tw');
    expect(installHooks(edit.doc, 'claude', OURS, false).changes).toEqual([]);
  });

  it("names Gemini's entries, and never mistakes another tool's hook for ours", () => {
    const edit = installHooks({}, 'gemini', OURS.replace('claude', 'gemini'), true);
    expect(JSON.stringify(edit.doc)).toContain('"name":"treewarden"');
    expect(isOurCommand('/usr/local/bin/other hook claude', OURS, 'claude')).toBe(false);
    expect(isOurCommand('treewarden hook codex', OURS, 'claude')).toBe(false);
    expect(isOurCommand('treewarden hook claude', OURS, 'claude')).toBe(true);
  });
});
