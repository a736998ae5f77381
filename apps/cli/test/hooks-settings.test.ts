/**
 * The settings edit, pure over the file's text: groups shared with other hooks, an earlier install
 * from another path, Gemini's names, and everything it does not add kept byte for byte.
 */
import { describe, expect, it } from 'vitest';
import {
  type EditOptions,
  installHooks,
  isOurCommand,
  toFileText,
  uninstallHooks,
} from '../src/commands/hooks-settings.js';

const OURS = '/usr/bin/node /opt/tw/apps/cli/dist/main.js hook claude';
const OLD = "'/home/me/old tw/bin/treewarden.js' hook claude";
const CLAUDE: EditOptions = { agent: 'claude', command: OURS, named: false, comments: false };

describe('hooks settings edit', () => {
  it('takes only our hook out of a group it shares with another, and keeps the group', () => {
    const shared = JSON.stringify({
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
    });
    const edit = uninstallHooks(shared, CLAUDE);
    expect(edit.changes).toEqual(['removed 1 SessionEnd hook']);
    expect(JSON.parse(edit.text)).toEqual({
      hooks: { SessionEnd: [{ matcher: '', hooks: [{ type: 'command', command: 'log.sh' }] }] },
    });
  });

  it('replaces an entry of an earlier install from another path instead of adding a second', () => {
    const before = JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: OLD }] }] } });
    const edit = installHooks(before, CLAUDE);
    expect(edit.changes[0]).toMatch(/^replaced SessionStart hook/);
    expect(edit.text).not.toContain('old tw');
    expect(installHooks(edit.text, CLAUDE).changes).toEqual([]);
  });

  it("names Gemini's entries, and never mistakes another tool's hook for ours", () => {
    const gemini = OURS.replace('claude', 'gemini');
    const edit = installHooks('{}', { agent: 'gemini', command: gemini, named: true, comments: true });
    expect(JSON.stringify(JSON.parse(edit.text))).toContain('"name":"treewarden"');
    expect(isOurCommand('/usr/local/bin/other hook claude', OURS, 'claude')).toBe(false);
    expect(isOurCommand('treewarden hook codex', OURS, 'claude')).toBe(false);
    expect(isOurCommand('treewarden hook claude', OURS, 'claude')).toBe(true);
    expect(isOurCommand(OLD, OURS, 'claude')).toBe(true);
    expect(isOurCommand('logger -t treewarden hook claude', OURS, 'claude')).toBe(false);
    expect(isOurCommand('echo x; treewarden hook claude', OURS, 'claude')).toBe(false);
  });

  it('keeps every byte it does not add: big integers, 1e400, -0, duplicate keys, integer-key order, invalid UTF-8', () => {
    const user = Buffer.concat([
      Buffer.from('{\n  "2": 1, "1": 2,\n  "big": 123456789012345678901234567890,\n  "huge": 1e400,\n  "neg": -0,\n'),
      Buffer.from('  "dup": 1,\n  "dup": 2,\n  "bytes": "'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(
        '",\n  "hooks": {\n    "SessionEnd": [\n      { "hooks": [{ "type": "command", "command": "logger -t treewarden hook claude" }] }\n    ]\n  }\n}\n',
      ),
    ]);
    const text = user.toString('latin1');
    const installed = installHooks(text, { ...CLAUDE, command: toFileText(OURS) });
    expect(installed.changes).toHaveLength(2);
    const removed = uninstallHooks(installed.text, { ...CLAUDE, command: toFileText(OURS) });
    expect(removed.changes).toEqual(['removed 1 SessionStart hook', 'removed 1 SessionEnd hook']);
    expect(Buffer.from(removed.text, 'latin1').equals(user)).toBe(true);
    // What changed on install is only inserted text: the user's bytes are all there, in order.
    const after = Buffer.from(installed.text, 'latin1');
    expect(after.includes(Buffer.from([0xff, 0xfe, 0xc3]))).toBe(true);
    for (const kept of ['123456789012345678901234567890', '1e400', '-0', '"dup": 1,\n  "dup": 2', '"2": 1, "1": 2'])
      expect(installed.text).toContain(kept);
    expect(installed.text).toContain('logger -t treewarden hook claude');
  });

  it('edits settings with comments (Gemini, Qwen) and keeps the comments; refuses them for strict JSON', () => {
    const text = '{\n  // my model\n  "model": "x", /* keep */\n}\n';
    const qwen = OURS.replace('claude', 'qwen');
    const edit = installHooks(text, { agent: 'qwen', command: qwen, named: true, comments: true });
    expect(edit.text).toContain('// my model');
    expect(edit.text).toContain('/* keep */');
    expect(uninstallHooks(edit.text, { agent: 'qwen', command: qwen, named: true, comments: true }).text).toBe(text);
    expect(() => installHooks(text, CLAUDE)).toThrow(/not valid JSON/);
  });
});
