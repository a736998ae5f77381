/**
 * A scenario's private world: a fresh directory (mkdtemp), a run cookie known before launch, and
 * the environment every fixture process inherits (report file, lifetime caps), so that even a
 * scenario whose cleanup never ran ends on its own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCommand } from '../runtime/node-command.js';
import type { FixtureReport, ScenarioContext, ScenarioDefinition, ScenarioMode } from './types.js';

/** packages/engine/fixtures, from src/scenarios or dist/scenarios alike. */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));
export const FIXTURE_REPORT_ENV = 'TREEWARDEN_FIXTURE_REPORT';
export const FIXTURE_LIFETIME_ENV = 'TREEWARDEN_FIXTURE_MAX_LIFETIME_MS';
/** Shell fixtures start Node through this (the environment carries what makes it run as Node). */
export const FIXTURE_NODE_ENV = 'TREEWARDEN_FIXTURE_NODE';
/** Fixtures outlive the scenario's time bound by this much at most, then exit by themselves. */
export const FIXTURE_LIFETIME_MARGIN_MS = 5000;

export interface Sandbox extends ScenarioContext {
  readReports(): FixtureReport[];
  remove(): void;
}

export function fixturePath(name: string): string {
  return join(FIXTURES_DIR, name);
}

function parseReports(text: string): FixtureReport[] {
  const reports: FixtureReport[] = [];
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    try {
      const value = JSON.parse(line) as FixtureReport;
      if (typeof value.role === 'string' && typeof value.pid === 'number') reports.push(value);
    } catch {
      // A line being written right now; it is complete on the next read.
    }
  }
  return reports;
}

export function createSandbox(definition: ScenarioDefinition, mode: ScenarioMode): Sandbox {
  const startedAtMs = Date.now();
  const dir = mkdtempSync(join(tmpdir(), `treewarden-scenario-${definition.name}-`));
  const reportFile = join(dir, 'report.jsonl');
  const lifetimeMs = definition.bounds.maxMs + FIXTURE_LIFETIME_MARGIN_MS;
  const lifetimeSeconds = String(Math.ceil(lifetimeMs / 1000));
  const node = nodeCommand();
  return {
    mode,
    runId: `scenario-${definition.name}-${randomUUID()}`,
    dir,
    reportFile,
    startedAtMs,
    fixture: fixturePath,
    node: node.command,
    env: {
      ...node.env,
      [FIXTURE_REPORT_ENV]: reportFile,
      [FIXTURE_LIFETIME_ENV]: String(lifetimeMs),
      FORK_LOOP_LIFETIME_S: lifetimeSeconds,
      ZOMBIE_PARENT_LIFETIME_S: lifetimeSeconds,
      [FIXTURE_NODE_ENV]: node.command,
    },
    readReports() {
      try {
        return parseReports(readFileSync(reportFile, 'utf8'));
      } catch {
        return [];
      }
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
