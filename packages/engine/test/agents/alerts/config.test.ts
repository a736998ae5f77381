/**
 * agent-alerts.json: every field optional with the documented defaults, bad input named by its
 * field, and a file that cannot be used leaves the defaults in force (nothing trimmed automatically).
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  alertConfigPath,
  budgetFor,
  DEFAULT_ALERT_CONFIG,
  loadAlertConfig,
  parseAlertConfig,
} from '../../../src/agents/alerts/index.js';

function stateWith(text: string, mode = 0o600): string {
  const root = mkdtempSync(join(tmpdir(), 'tw-alert-config-'));
  writeFileSync(alertConfigPath(root), text, { mode });
  chmodSync(alertConfigPath(root), mode);
  return root;
}

describe('alert config', () => {
  it('defaults: the System view thresholds, a generous budget, nothing automatic', () => {
    expect(DEFAULT_ALERT_CONFIG).toEqual({
      version: 1,
      duplicateServers: { enabled: true },
      staleSubagents: { enabled: true, allowed: 2, idleSeconds: 600 },
      runawayJob: { enabled: true, cpuPercent: 90, cpuSeconds: 180, memoryMibPerMinute: 20, memorySeconds: 300 },
      fdHog: { enabled: true, fdPercent: 50, inotifyPercent: 25 },
      budgets: { '*': { processes: 400, memoryMib: 8192 } },
      autoTrim: { kinds: [], afterSeconds: 30 },
    });
    expect(loadAlertConfig(mkdtempSync(join(tmpdir(), 'tw-alert-none-')))).toEqual({ config: DEFAULT_ALERT_CONFIG });
  });

  it('fills what a file leaves out, and an agent budget wins over "*" field by field', () => {
    const config = parseAlertConfig(
      '{"runawayJob":{"cpuPercent":150},"budgets":{"*":{"processes":50,"memoryMib":100},"codex":{"processes":9}},"autoTrim":{"kinds":["duplicate-servers"]}}',
    );
    expect(config.runawayJob).toMatchObject({ cpuPercent: 150, cpuSeconds: 180 });
    expect(budgetFor(config, 'codex')).toEqual({ processes: 9, memoryMib: 100 });
    expect(budgetFor(config, 'claude-code')).toEqual({ processes: 50, memoryMib: 100 });
    expect(config.autoTrim).toEqual({ kinds: ['duplicate-servers'], afterSeconds: 30 });
    expect(budgetFor(parseAlertConfig('{"budgets":{}}'), 'codex')).toEqual({});
  });

  it.each([
    ['{"runawayJob":{"cpuPercent":0}}', /^runawayJob\.cpuPercent: /],
    ['{"staleSubagents":{"allowed":-1}}', /^staleSubagents\.allowed: /],
    ['{"staleSubagents":{"idleSeconds":"600"}}', /^staleSubagents\.idleSeconds: /],
    ['{"autoTrim":{"kinds":["everything"]}}', /^autoTrim\.kinds\.0: /],
    ['{"budgets":{"Claude Code":{"processes":3}}}', /^budgets\.Claude Code: .*agent id/],
    ['{"budgets":{"*":{"processes":3,"cpu":1}}}', /^budgets\.\*: .*cpu/],
    ['{"runawyJob":{}}', /^\(top\): .*runawyJob/],
    ['{"version":2}', /^version: /],
    ['{"runawayJob":', /^not JSON: /],
  ])('refuses %s, naming the field', (text, message) => {
    expect(() => parseAlertConfig(text)).toThrow(message);
  });

  it('a bad or shared file is reported and the defaults hold', () => {
    const bad = loadAlertConfig(stateWith('{"autoTrim":{"kinds":["budget"]},"runawayJob":{"cpuSeconds":0}}'));
    expect(bad.config).toEqual(DEFAULT_ALERT_CONFIG);
    expect(bad.problem?.message).toMatch(/defaults used .*runawayJob\.cpuSeconds/);
    const shared = loadAlertConfig(stateWith('{"autoTrim":{"kinds":["budget"]}}', 0o644));
    expect(shared.config.autoTrim.kinds).toEqual([]);
    expect(shared.problem?.message).toMatch(/other users/);
    expect(loadAlertConfig(stateWith('{"autoTrim":{"kinds":["budget"]}}')).config.autoTrim.kinds).toEqual(['budget']);
  });
});
