import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OrphanBanner } from '../src/components/orphan-banner';
import { WarningBanner } from '../src/components/warning-banner';
import { middleEllipsis, parseProse, proseTitle, tildePath } from '../src/model/prose';
import { useAppStore } from '../src/store/store';
import { makeProcess, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
const HOME = '/home/ana';

describe('host sentences as a person reads them', () => {
  it('turns code spans, ISO times, the home directory and long paths into readable pieces', () => {
    const spans = parseProse('pid 9 `node /home/ana/work/app/server.js`: run ended (ok) at 2023-11-14T22:13:20.000Z.', {
      homeDir: HOME,
      nowMs: NOW,
    });
    expect(spans.map((span) => span.code)).toEqual([false, true, false]);
    const pieces = spans.flatMap((span) => span.pieces);
    expect(pieces.find((piece) => piece.kind === 'path')?.text).toBe('~/work/app/server.js');
    const time = pieces.find((piece) => piece.kind === 'time');
    expect(time?.text).toMatch(/^(today )?\d\d:\d\d:\d\d$|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(time?.kind === 'time' ? time.title : '').toMatch(/^2023-11-1[45] \d\d:\d\d:\d\d UTC[+-]\d\d:\d\d$/);
    // The full stop after the time stays text; no backtick is left anywhere.
    expect(pieces.map((piece) => piece.text).join('')).not.toContain('`');
  });

  it('cuts a long path in its middle and keeps it whole for the tooltip', () => {
    const long = '/home/ana/projects/treewarden/e2e/test-results/fixtures/leaky/run-forever.mjs';
    expect(tildePath(long, HOME)).toBe('~/projects/treewarden/e2e/test-results/fixtures/leaky/run-forever.mjs');
    const cut = middleEllipsis(tildePath(long, HOME));
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut).toMatch(/^~\/…\/.*run-forever\.mjs$/);
    const [span] = parseProse(`cwd ${long}`, { homeDir: HOME });
    const path = span?.pieces.find((piece) => piece.kind === 'path');
    expect(path?.kind === 'path' ? path.title : null).toBe(long);
    // Not paths: URLs, fractions, words with slashes.
    expect(parseProse('see http://x/y and 1/2 and tcp/udp')[0]?.pieces).toHaveLength(1);
    expect(proseTitle('`a` at 2023-11-14T22:13:20Z', { homeDir: HOME })).not.toMatch(/`|T22:13/);
  });

  it('the leak banner ends in a local time, not an ISO string, and names home as ~', () => {
    const reason = 'run ended (ok) at 2023-11-14T22:13:20.000Z';
    const orphan = {
      runId: 'run-7',
      leaseId: 'lease-1',
      kind: 'over' as const,
      reasons: [reason, 'cwd inside the run dir /home/ana/.local/state/treewarden/runs/run-7'],
      process: makeProcess({ pid: 4242, command: 'run-forever' }),
    };
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ orphans: [orphan], counts: { live: 0, leaked: 1 }, homeDir: HOME })),
    );
    render(<OrphanBanner />);
    const banner = screen.getByTestId('orphan-banner');
    expect(banner.textContent).toContain('run ended (ok) at ');
    expect(banner.textContent).not.toMatch(ISO);
    expect(banner.querySelector('time')?.getAttribute('title')).toMatch(/^2023-11-1[45] /);
    const named = banner.querySelector('.banner-orphan');
    expect(named?.getAttribute('title')).not.toMatch(ISO);
    expect(named?.getAttribute('title')).toContain('~/.local/state/treewarden/runs/run-7');
  });

  it('a warning shows its code spans as code, without backticks', () => {
    act(() =>
      useAppStore.getState().applySnapshot(
        makeSnapshot({
          warnings: ['Run `treewarden doctor` to see why /home/ana/.cache/x is unreadable.'],
          homeDir: HOME,
        }),
      ),
    );
    render(<WarningBanner />);
    const banner = screen.getByTestId('warning-banner');
    expect(banner.textContent).not.toContain('`');
    expect(banner.querySelector('code')?.textContent).toBe('treewarden doctor');
    expect(banner.textContent).toContain('~/.cache/x');
    expect(banner.textContent).not.toContain(HOME);
  });
});
