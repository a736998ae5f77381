/** Which live engine CLI explains a container's create, and weak evidence from the container itself. */
import { describe, expect, it } from 'vitest';
import {
  bestCliMatches,
  engineCliVerb,
  isInteractiveRun,
  weakContainerEvidence,
} from '../../src/agents/sessions/container-match.js';
import type { ContainerInfo } from '../../src/containers/engine-api.js';
import { parseContainerEvent } from '../../src/containers/engine-events.js';

const cli = (pid: number, args: string[], cwd: string | null = null) => ({ pid, startTime: String(pid), args, cwd });

describe('engine CLI verbs', () => {
  it('knows the creating commands and skips global options', () => {
    expect(engineCliVerb(['docker', 'run', '-d', 'img'])).toBe('run');
    expect(engineCliVerb(['/usr/bin/docker', '-H', 'unix:///x.sock', 'container', 'create', 'img'])).toBe('create');
    expect(engineCliVerb(['docker', 'compose', '-f', 'x.yml', 'up', '-d'])).toBe('compose-up');
    expect(engineCliVerb(['docker-compose', 'up'])).toBe('compose-up');
    expect(engineCliVerb(['podman', 'run', 'img'])).toBe('run');
    expect(engineCliVerb(['docker', 'ps'])).toBeNull();
    expect(engineCliVerb(['docker', 'stop', 'run'])).toBeNull();
    expect(engineCliVerb(['mydocker', 'run'])).toBeNull();
  });

  it('sees an attached stdin (the MCP server shape)', () => {
    expect(isInteractiveRun(['docker', 'run', '-i', '--rm', 'mcp/x'])).toBe(true);
    expect(isInteractiveRun(['docker', 'run', '-it', 'x'])).toBe(true);
    expect(isInteractiveRun(['docker', 'run', '-d', 'x'])).toBe(false);
  });
});

describe('matching a create to live CLIs', () => {
  const attributes = { name: 'db1', image: 'postgres:16' };
  it('prefers a --name match over an image match, and never a CLI naming another container', () => {
    const byName = cli(1, ['docker', 'run', '-d', '--name', 'db1', 'postgres:16']);
    const byImage = cli(2, ['docker', 'run', '-d', 'postgres:16']);
    const other = cli(3, ['docker', 'run', '-d', '--name=db2', 'postgres:16']);
    expect(bestCliMatches([byImage, other, byName], attributes)).toEqual([byName]);
    expect(bestCliMatches([byImage, other], attributes)).toEqual([byImage]);
    expect(bestCliMatches([other, cli(4, ['docker', 'logs', 'db1'])], attributes)).toEqual([]);
  });

  it('matches compose up by its working dir', () => {
    const up = cli(5, ['docker', 'compose', 'up', '-d'], '/p');
    const labels = { 'com.docker.compose.project.working_dir': '/p', 'com.docker.compose.project': 'p', image: 'x' };
    expect(bestCliMatches([up], labels)).toEqual([up]);
    expect(bestCliMatches([cli(6, ['docker', 'compose', 'up'], '/q')], labels)).toEqual([]);
  });
});

describe('weak evidence', () => {
  const base: ContainerInfo = {
    id: 'a'.repeat(64),
    name: 'x',
    image: 'i',
    state: 'running',
    createdAtMs: 10_000,
    labels: {},
    ports: [],
    bindSources: [],
    startedAtMs: null,
  };
  const session = { cwd: '/home/u/proj', startedAtMs: 5000 };
  it('names a compose working dir equal to the session dir and a bind mount inside it', () => {
    const c = {
      ...base,
      labels: { 'com.docker.compose.project.working_dir': '/home/u/proj' },
      bindSources: ['/home/u/proj/data'],
    };
    expect(weakContainerEvidence(c, session, null).map((e) => e.kind)).toEqual(['compose-working-dir', 'bind-mount']);
  });
  it('ignores containers created before the session or after it ended, other dirs, and a root cwd', () => {
    const c = { ...base, bindSources: ['/home/u/proj'] };
    expect(weakContainerEvidence({ ...c, createdAtMs: 1000 }, session, null)).toEqual([]);
    expect(weakContainerEvidence(c, session, 9000)).toEqual([]);
    expect(weakContainerEvidence({ ...c, bindSources: ['/home/u/project2'] }, session, null)).toEqual([]);
    expect(weakContainerEvidence(c, { cwd: '/', startedAtMs: 0 }, null)).toEqual([]);
  });
});

describe('event lines', () => {
  it('parses a container event and rejects anything else', () => {
    const line = JSON.stringify({
      Type: 'container',
      Action: 'create',
      Actor: { ID: 'b'.repeat(64), Attributes: { name: 'n', image: 'i' } },
      timeNano: 1_700_000_000_123_000_000,
    });
    expect(parseContainerEvent(line, 5)).toEqual({
      action: 'create',
      id: 'b'.repeat(64),
      attributes: { name: 'n', image: 'i' },
      atMs: 1_700_000_000_123,
      receivedAtMs: 5,
    });
    expect(parseContainerEvent('{"Type":"network","Action":"create"}', 0)).toBeNull();
    expect(parseContainerEvent('not json', 0)).toBeNull();
  });
});
