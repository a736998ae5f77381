import { describe, expect, it } from 'vitest';
import { containerEvidenceStrength, isInsideDirectory } from '../../src/containers/container-evidence.js';

describe('containerEvidenceStrength', () => {
  it('is null without evidence, so nothing is attributed on nothing', () => {
    expect(containerEvidenceStrength([])).toBeNull();
  });
  it('is weak for a compose working dir or bind mount alone', () => {
    expect(containerEvidenceStrength([{ kind: 'bind-mount', detail: '/p' }])).toBe('weak');
    expect(containerEvidenceStrength([{ kind: 'compose-working-dir', detail: '/p' }])).toBe('weak');
  });
  it('is strong when the creating CLI was a member or it is a member MCP server', () => {
    expect(
      containerEvidenceStrength([
        { kind: 'bind-mount', detail: '/p' },
        { kind: 'creating-cli-member', detail: 'pid 10' },
      ]),
    ).toBe('strong');
    expect(containerEvidenceStrength([{ kind: 'mcp-server', detail: 'pid 11' }])).toBe('strong');
  });
});

describe('isInsideDirectory', () => {
  it('matches the directory and paths under it, not siblings sharing a prefix', () => {
    expect(isInsideDirectory('/work/p', '/work/p')).toBe(true);
    expect(isInsideDirectory('/work/p/db', '/work/p/')).toBe(true);
    expect(isInsideDirectory('/work/p2', '/work/p')).toBe(false);
    expect(isInsideDirectory('/work', '/')).toBe(false);
  });
});
