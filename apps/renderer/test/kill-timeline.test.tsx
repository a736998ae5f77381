import { render } from '@testing-library/react';
import { type KillReport, killReportSchema } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { KillTimeline } from '../src/components/kill-timeline';
import { makeKillReport } from './fixtures';

/** Each rendered step as [action, label, detail]. */
function renderedSteps(report: KillReport): [string | null, string | null, string | null][] {
  const { container } = render(<KillTimeline report={report} />);
  return [...container.querySelectorAll('.tl')].map((step) => [
    step.getAttribute('data-action'),
    step.querySelector('.tl-action')?.textContent ?? null,
    step.querySelector('.tl-detail')?.textContent ?? null,
  ]);
}

describe('the kill timeline', () => {
  it('shows the freeze and the resume as their own signals, in the order they were sent', () => {
    const report = makeKillReport({
      result: 'kill_failed',
      timeline: [
        { atMs: 0, action: 'observe', pids: [100, 101] },
        { atMs: 1, action: 'stop', groups: [100], pids: [100, 101], detail: 'freeze round 1' },
        { atMs: 2, action: 'SIGKILL', groups: [100] },
        { atMs: 3010, action: 'verify', pids: [101], detail: '1 survivor(s)' },
        { atMs: 3011, action: 'continue', pids: [101] },
      ],
    });
    expect(renderedSteps(report)).toEqual([
      ['observe', 'observe', 'pids 100, 101'],
      ['stop', 'freeze · SIGSTOP', 'groups 100 · pids 100, 101 · freeze round 1'],
      ['SIGKILL', 'SIGKILL', 'groups 100'],
      ['verify', 'verify', 'pids 101 · 1 survivor(s)'],
      ['continue', 'resume · SIGCONT', 'pids 101'],
    ]);
  });

  it('explains what a freeze and a resume are for', () => {
    const { container } = render(
      <KillTimeline
        report={makeKillReport({
          timeline: [
            { atMs: 0, action: 'stop', pids: [100] },
            { atMs: 1, action: 'continue', pids: [100] },
          ],
        })}
      />,
    );
    const titles = [...container.querySelectorAll('.tl-action')].map((label) => label.getAttribute('title'));
    expect(titles[0]).toMatch(/SIGSTOP.*fork/);
    expect(titles[1]).toMatch(/SIGCONT.*frozen/);
  });

  it('still reads a record written when the freeze was logged as observe, and shows it as the freeze', () => {
    // A kill report as older hosts and guardians stored it: the freeze's SIGSTOP under `observe`.
    const legacy = killReportSchema.parse({
      ...makeKillReport(),
      timeline: [
        { atMs: 0, action: 'observe', pids: [100] },
        { atMs: 1, action: 'observe', groups: [100], pids: [], detail: 'freeze round 1: SIGSTOP' },
        { atMs: 2, action: 'observe', pids: [100] },
        { atMs: 3, action: 'SIGKILL', groups: [100] },
      ],
    });
    expect(renderedSteps(legacy)).toEqual([
      ['observe', 'observe', 'pids 100'],
      ['stop', 'freeze · SIGSTOP', 'groups 100 · freeze round 1'],
      ['observe', 'observe', 'pids 100'],
      ['SIGKILL', 'SIGKILL', 'groups 100'],
    ]);
  });

  it('refuses a timeline action outside the vocabulary at the boundary', () => {
    const parsed = killReportSchema.safeParse({
      ...makeKillReport(),
      timeline: [{ atMs: 0, action: 'SIGSTOP', pids: [100] }],
    });
    expect(parsed.success).toBe(false);
  });
});
