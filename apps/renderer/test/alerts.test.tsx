/**
 * Pile-ups inside live agent sessions in the UI: the sidebar's session row and the session card show
 * each alert with its evidence; the banner's neighbour names them without adding to the leak count;
 * "Trim…" lists exactly the alerted processes (pid, start, command line, role, why), sends exactly
 * those identities only after the confirmation, and then shows the host's answer per process
 * truthfully (ended, already gone, still alive, refused, not answered for, the whole trim refused,
 * no answer at all). Notifications come once per alert id.
 */

import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import {
  type Command,
  MAX_REMEMBERED_ALERT_IDS,
  nextAlertNotice,
  type OrphanView,
  type Reply,
  type SessionAlert,
  type SessionView,
} from '@treewarden/protocol';
import { describe, expect, it, vi } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { AlertBanner } from '../src/components/alert-banner';
import { OrphanBanner } from '../src/components/orphan-banner';
import { SessionView as SessionDetail } from '../src/components/session-view';
import { Sidebar } from '../src/components/sidebar';
import { TrimDialog } from '../src/components/trim-dialog';
import { useLeakNotifications } from '../src/hooks/use-leak-notifications';
import { proseTitle } from '../src/model/prose';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeProcess,
  makeSession,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

const SERVER_ARGS = 'npx -y @modelcontextprotocol/server-filesystem /home/ana/proj';

/** A live Claude session with two old sets of the same MCP server (503, 504) and the newest (505). */
function pileSession(alerts: SessionAlert[] = [duplicateAlert()], overrides: Partial<SessionView> = {}): SessionView {
  const base = makeSession();
  const server = (pid: number, ageMs: number) => ({
    ...makeProcess({ pid, startTime: `${pid}1`, ppid: 500, commandLine: SERVER_ARGS, startedAtMs: NOW - ageMs }),
    role: 'mcp-server' as const,
  });
  return {
    ...base,
    members: [
      ...base.members,
      ...[503, 504, 505].map((pid) => ({
        pid,
        startTime: `${pid}1`,
        role: 'mcp-server' as const,
        args: SERVER_ARGS.split(' '),
      })),
    ],
    processes: [...base.processes, server(503, 3_600_000), server(504, 1_800_000), server(505, 60_000)],
    alerts,
    ...overrides,
  };
}

function duplicateAlert(overrides: Partial<SessionAlert> = {}): SessionAlert {
  return {
    id: 'duplicate-servers:claude-code-500-77:503@5031,504@5041',
    kind: 'duplicate-servers',
    pids: [503, 504],
    processes: [
      { pid: 503, startTime: '5031' },
      { pid: 504, startTime: '5041' },
    ],
    why: `3 sets of \`${SERVER_ARGS}\` alive; the newest (pid 505) is kept`,
    since: new Date(NOW - 120_000).toISOString(),
    ...overrides,
  };
}

function showSessions(sessions: SessionView[], orphans: OrphanView[] = []) {
  act(() =>
    useAppStore
      .getState()
      .applySnapshot(makeSnapshot({ sessions, orphans, counts: { live: 1, leaked: orphans.length } })),
  );
}

function renderCard() {
  render(
    <>
      <OrphanBanner />
      <AlertBanner />
      <SessionDetail />
      <TrimDialog />
      <ActivityPanel />
    </>,
  );
}

function openTrim() {
  fireEvent.click(within(screen.getByTestId('session-alerts')).getByRole('button', { name: 'Trim…' }));
  return screen.getByRole('dialog', { name: 'Trim 2 processes of duplicate MCP servers?' });
}

function trimButton(): HTMLElement {
  return within(screen.getByRole('dialog')).getByRole('button', { name: 'Trim' });
}

function resultsByPid(): Record<string, string> {
  return Object.fromEntries(
    screen
      .getAllByTestId('trim-target')
      .map((row) => [row.getAttribute('data-pid'), within(row).queryByTestId('trim-result')?.textContent ?? '']),
  );
}

describe('alerts on the session card', () => {
  it('the sidebar row of a live session names its pile-up; an ended session shows none', () => {
    const ended = pileSession([duplicateAlert({ id: 'stale' })], {
      id: 'codex-9-9',
      agent: 'codex',
      state: 'ended',
      endedAt: new Date(NOW).toISOString(),
    });
    showSessions([pileSession(), ended]);
    render(<Sidebar />);
    fireEvent.click(screen.getByRole('button', { name: /Ended/ }));
    const live = screen.getByRole('option', { name: /claude-code/ });
    const badge = within(live).getByTestId('session-alert-badge');
    expect(badge.textContent).toBe('1 pile-up');
    expect(badge.getAttribute('title')).toBe('duplicate MCP servers');
    expect(within(screen.getByRole('option', { name: /codex/ })).queryByTestId('session-alert-badge')).toBeNull();
  });

  it('counts several pile-ups on the row', () => {
    const runaway = duplicateAlert({
      id: 'runaway',
      kind: 'runaway-job',
      pids: [502],
      processes: [{ pid: 502, startTime: '79' }],
    });
    showSessions([pileSession([duplicateAlert(), runaway])]);
    render(<Sidebar />);
    const badge = screen.getByTestId('session-alert-badge');
    expect(badge.textContent).toBe('2 pile-ups');
    expect(badge.getAttribute('title')).toBe('duplicate MCP servers, runaway job');
  });

  it('the session view lists each alert with its evidence and exact pids', () => {
    // "for …" counts from the wall clock (useNow), so this alert is raised two minutes before now.
    showSessions([pileSession([duplicateAlert({ since: new Date(Date.now() - 120_000).toISOString() })])]);
    renderCard();
    const alert = screen.getByTestId('session-alert');
    expect(alert.getAttribute('data-kind')).toBe('duplicate-servers');
    expect(alert.textContent).toContain('duplicate MCP servers');
    expect(alert.textContent).toMatch(/2 processes · for 2 min/);
    expect(alert.textContent).toContain('the newest (pid 505) is kept');
    expect(alert.textContent).toContain('pid 503, 504');
  });

  it('marks the alerted rows of the session tree by identity, not by pid', () => {
    // 504 is alerted under another start time: a recycled pid is not the alerted process.
    const alert = duplicateAlert({
      processes: [
        { pid: 503, startTime: '5031' },
        { pid: 504, startTime: '999' },
      ],
    });
    showSessions([pileSession([alert])]);
    renderCard();
    const marked = screen
      .getAllByTestId('session-proc')
      .filter((row) => row.getAttribute('data-alerted') === 'true')
      .map((row) => row.querySelector('.num')?.textContent);
    expect(marked).toEqual(['503']);
  });

  it('shows no alerts section for a session without pile-ups', () => {
    showSessions([pileSession([])]);
    renderCard();
    expect(screen.queryByTestId('session-alerts')).toBeNull();
    expect(screen.queryByTestId('alert-banner')).toBeNull();
  });
});

describe("the leak banner's neighbour", () => {
  it('names live pile-ups without counting them as leaks, and opens the session', () => {
    const leak: OrphanView = {
      runId: null,
      leaseId: null,
      kind: 'agent',
      agent: 'codex',
      sessionId: 'codex-9-9',
      role: 'shell',
      reasons: ['codex root 9 (start 9) is gone'],
      process: makeProcess({ pid: 900, startTime: '9001' }),
    };
    showSessions([pileSession()], [leak]);
    useAppStore.getState().setView('runs');
    render(
      <>
        <OrphanBanner />
        <AlertBanner />
      </>,
    );
    expect(screen.getByTestId('orphan-count').textContent).toBe('1 leaked process from 1 agent session still alive.');
    const banner = screen.getByTestId('alert-banner');
    expect(screen.getByTestId('alert-count').textContent).toBe('1 pile-up in 1 live agent session.');
    expect(banner.textContent).toContain('duplicate MCP servers (2 processes) in claude-code · ~/proj');
    expect(banner.textContent).toContain('the newest (pid 505) is kept');
    fireEvent.click(within(banner).getByRole('button', { name: 'Open session' }));
    expect(useAppStore.getState().view).toBe('sessions');
    expect(useAppStore.getState().selectedSessionId).toBe('claude-code-500-77');
  });

  it('cuts long evidence in the banner and keeps it whole on hover', () => {
    const why = `3 sets of \`${'/very/long/path/'.repeat(20)}server.mjs ${'--option value '.repeat(12)}--last\` alive; the newest (pid 505) is kept`;
    showSessions([pileSession([duplicateAlert({ why })])]);
    render(<AlertBanner />);
    const evidence = screen
      .getAllByTitle(proseTitle(why))
      .find((node) => node.className === 'banner-evidence') as HTMLElement;
    expect(evidence.textContent?.length).toBeLessThan(150);
    expect(evidence.textContent?.endsWith('…')).toBe(true);
    // The code span cut open is still code: no backtick shows.
    expect(evidence.textContent).not.toContain('`');
    expect(evidence.querySelector('code')).not.toBeNull();
  });

  it('is absent while no live session has an alert, even when an ended one still carries some', () => {
    showSessions([pileSession([duplicateAlert()], { state: 'ended', endedAt: new Date(NOW).toISOString() })]);
    render(<AlertBanner />);
    expect(screen.queryByTestId('alert-banner')).toBeNull();
  });
});

describe('Trim', () => {
  it('lists exactly what it will signal, sends nothing on Cancel, and exactly those identities on Trim', async () => {
    const { sent } = installFakeBridge(() =>
      okReply({
        processes: [
          { pid: 503, startTime: '5031', result: 'killed' },
          { pid: 504, startTime: '5041', result: 'killed' },
        ],
      }),
    );
    showSessions([pileSession()]);
    renderCard();
    let dialog = openTrim();
    const rows = within(dialog).getAllByTestId('trim-target');
    expect(rows.map((row) => row.getAttribute('data-pid'))).toEqual(['503', '504']);
    expect(rows[0]?.textContent).toContain(SERVER_ARGS);
    expect(rows[0]?.textContent).toContain('MCP server');
    expect(rows[0]?.textContent).toMatch(/started (today )?\d/);
    expect(within(dialog).getAllByTitle('kernel start time 5031')).toHaveLength(1);
    expect(dialog.textContent).toContain('the newest (pid 505) is kept');
    expect(dialog.textContent).not.toContain('pid 505 ');
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(sent).toEqual([]);

    dialog = openTrim();
    fireEvent.click(trimButton());
    await waitFor(() => expect(screen.getByTestId('trim-summary').textContent).toBe('Trim: ended 2 of 2 processes'));
    expect(sent).toEqual([
      {
        type: 'trimSession',
        sessionId: 'claude-code-500-77',
        kind: 'duplicate-servers',
        targets: [
          { pid: 503, startTime: '5031' },
          { pid: 504, startTime: '5041' },
        ],
      },
    ]);
    expect(resultsByPid()).toEqual({ '503': 'ended', '504': 'ended' });
    expect(screen.getByTestId('activity-latest').textContent).toContain('Trim: ended 2 of 2 processes');
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(useAppStore.getState().trim).toBeNull();
  });

  it('shows every per-process answer as the host gave it, and what it did not answer for', async () => {
    const third = { pid: 506, startTime: '5061' };
    const alert = duplicateAlert({
      pids: [503, 504, 506, 507, 508],
      processes: [
        { pid: 503, startTime: '5031' },
        { pid: 504, startTime: '5041' },
        third,
        { pid: 507, startTime: '5071' },
        { pid: 508, startTime: '5081' },
      ],
    });
    installFakeBridge(() =>
      okReply({
        processes: [
          { pid: 503, startTime: '5031', result: 'killed' },
          { pid: 504, startTime: '5041', result: 'already_gone' },
          { ...third, result: 'kill_failed', detail: 'survived SIGKILL' },
          { pid: 507, startTime: '5071', result: 'refused', detail: 'start time changed: pid reused' },
        ],
      }),
    );
    showSessions([pileSession([alert])]);
    renderCard();
    fireEvent.click(screen.getByRole('button', { name: 'Trim…' }));
    // 506–508 are not in the snapshot's processes: the dialog says so rather than inventing a command.
    expect(screen.getAllByTestId('trim-target')[2]?.textContent).toContain('not in the latest snapshot');
    fireEvent.click(trimButton());
    await waitFor(() => expect(screen.getByTestId('trim-summary')).toBeTruthy());
    expect(screen.getByTestId('trim-summary').textContent).toBe(
      'Trim: ended 2 of 5 processes, 2 not ended, 1 not answered for',
    );
    expect(resultsByPid()).toEqual({
      '503': 'ended',
      '504': 'already gone',
      '506': 'STILL ALIVE: the kill failed (survived SIGKILL)',
      '507': 'refused: not signalled (start time changed: pid reused)',
      '508': 'not answered for: state unknown',
    });
    const latest = screen.getByTestId('activity-latest');
    expect(latest.textContent).toContain('pid 506: kill_failed (survived SIGKILL)');
    expect(latest.textContent).toContain('pid 507: refused');
  });

  it("shows the host's refusal of the whole trim in its own words", async () => {
    installFakeBridge((): Reply => ({ kind: 'reply', id: 1, ok: false, error: 'session claude-code-500-77 ended' }));
    showSessions([pileSession()]);
    renderCard();
    openTrim();
    fireEvent.click(trimButton());
    await waitFor(() =>
      expect(screen.getByTestId('trim-summary').textContent).toBe('Refused: session claude-code-500-77 ended'),
    );
    expect(screen.getByTestId('activity-latest').textContent).toContain('refused');
  });

  it('keeps the dialog (and its buttons disabled) until the host answered; a broken connection is an unknown', async () => {
    let fail: (error: Error) => void = () => undefined;
    installFakeBridge(
      (_command: Command) =>
        new Promise<Reply>((_resolve, reject) => {
          fail = reject;
        }),
    );
    showSessions([pileSession()]);
    renderCard();
    openTrim();
    fireEvent.click(trimButton());
    await waitFor(() =>
      expect(within(screen.getByRole('dialog')).getByRole('button', { name: 'Trimming…' })).toBeTruthy(),
    );
    const cancel = within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }) as HTMLButtonElement;
    expect(cancel.disabled).toBe(true);
    fireEvent.click(cancel);
    expect(useAppStore.getState().trim?.phase).toBe('sending');
    // The trim's own kills clear the alert while it is sent: no red "will refuse" warning then.
    showSessions([pileSession([])]);
    expect(screen.queryByTestId('trim-stale')).toBeNull();
    act(() => fail(new Error('socket closed')));
    await waitFor(() =>
      expect(screen.getByTestId('trim-summary').textContent).toBe(
        'Refused: no answer from the host (socket closed); whether anything was signalled is unknown',
      ),
    );
  });

  it('says when the alert cleared while the dialog was open, and still sends only what the user saw', async () => {
    const { sent } = installFakeBridge(() =>
      okReply({
        processes: [
          { pid: 503, startTime: '5031', result: 'refused', detail: 'no longer alerted' },
          { pid: 504, startTime: '5041', result: 'refused', detail: 'no longer alerted' },
        ],
      }),
    );
    showSessions([pileSession()]);
    renderCard();
    openTrim();
    expect(screen.queryByTestId('trim-stale')).toBeNull();
    showSessions([pileSession([])]);
    expect(screen.getByTestId('trim-stale').textContent).toContain('no longer alerted');
    fireEvent.click(trimButton());
    await waitFor(() => expect(screen.getByTestId('trim-summary').textContent).toContain('2 not ended'));
    expect(sent).toHaveLength(1);
    expect((sent[0] as { targets: unknown }).targets).toEqual([
      { pid: 503, startTime: '5031' },
      { pid: 504, startTime: '5041' },
    ]);
  });
});

function Notifier() {
  useLeakNotifications();
  return null;
}

describe('alert notifications', () => {
  const session = (alerts: SessionAlert[], state: 'live' | 'ended' = 'live') =>
    pileSession(alerts, state === 'live' ? {} : { state, endedAt: new Date(NOW).toISOString() });

  it('treat the first snapshot as the baseline, then tell each alert id once', () => {
    const first = nextAlertNotice(null, [session([duplicateAlert()])]);
    expect(first.notice).toBeNull();
    expect(nextAlertNotice(first.seen, [session([duplicateAlert()])]).notice).toBeNull();
    const runaway = duplicateAlert({ id: 'runaway-1', kind: 'runaway-job', pids: [502], why: '100% CPU for 10m' });
    const second = nextAlertNotice(first.seen, [session([duplicateAlert(), runaway])]);
    expect(second.notice?.title).toBe('Treewarden: runaway job in a live claude-code session');
    expect(second.notice?.body).toBe(
      'runaway job (1 process) in claude-code session claude-code-500-77: 100% CPU for 10m',
    );
    expect(second.notice?.alertIds).toEqual(['runaway-1']);
    // Cleared, then back with the same id: already told.
    const cleared = nextAlertNotice(second.seen, [session([])]);
    expect(nextAlertNotice(cleared.seen, [session([runaway])]).notice).toBeNull();
  });

  it('group several new alerts in one notice and ignore an ended session', () => {
    const base = nextAlertNotice(null, []);
    const alerts = ['a', 'b', 'c', 'd'].map((id) => duplicateAlert({ id }));
    const step = nextAlertNotice(base.seen, [session(alerts), session([duplicateAlert({ id: 'e' })], 'ended')]);
    expect(step.notice?.title).toBe('Treewarden: 4 pile-ups in live agent sessions');
    expect(step.notice?.body.split('\n')).toEqual([
      'duplicate MCP servers (2 processes) in claude-code session claude-code-500-77',
      'duplicate MCP servers (2 processes) in claude-code session claude-code-500-77',
      'duplicate MCP servers (2 processes) in claude-code session claude-code-500-77',
      'and 1 more',
    ]);
    expect(step.notice?.alertIds).toEqual(['a', 'b', 'c', 'd']);
  });

  it('remember a bounded number of ids, never forgetting one still on screen', () => {
    const onScreen = duplicateAlert({ id: 'kept' });
    let seen = nextAlertNotice(null, [session([onScreen])]).seen;
    const many = Array.from({ length: MAX_REMEMBERED_ALERT_IDS + 5 }, (_, index) =>
      duplicateAlert({ id: `x${index}` }),
    );
    seen = nextAlertNotice(seen, [session([...many, onScreen])]).seen;
    expect(seen.size).toBe(MAX_REMEMBERED_ALERT_IDS);
    expect(seen.has('kept')).toBe(true);
  });

  it('show a browser notification for a new alert once the user turned notifications on', () => {
    const shown: string[] = [];
    vi.stubGlobal(
      'Notification',
      class {
        static permission = 'granted';
        constructor(title: string) {
          shown.push(title);
        }
      },
    );
    try {
      useAppStore.getState().setNotifyLeaks(true);
      showSessions([session([])]);
      render(<Notifier />);
      showSessions([session([])]);
      showSessions([session([duplicateAlert()])]);
      showSessions([session([duplicateAlert()])]);
      expect(shown).toEqual(['Treewarden: duplicate MCP servers in a live claude-code session']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
