/**
 * The New Run form's "Run in its own cgroup" box: offered where the host's probe found a cgroup
 * v2 parent, disabled with the probe's reason where it did not (or where the host did not say),
 * and a ticked box sends `cgroup: true`; the run's details say which path enforced the limits.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { CgroupCapability } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { RunDetails } from '../src/components/run-details';
import { StartRunDialog } from '../src/components/start-run';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeLease, makeRun, makeSnapshot, okReply, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const AVAILABLE: CgroupCapability = { available: true, path: '/sys/fs/cgroup/unified', controllers: [] };
const MISSING: CgroupCapability = {
  available: false,
  reason: 'no cgroup v2 directory under /sys/fs/cgroup is owned and writable by uid 1000',
};

function openForm(capability: CgroupCapability | undefined) {
  const sent = installFakeBridge(() => okReply({ runId: 'run-7', leaseId: 'lease-1', launchError: null })).sent;
  act(() => {
    useAppStore
      .getState()
      .applySnapshot(makeSnapshot(capability === undefined ? {} : { capabilities: { cgroup: capability } }));
    useAppStore.getState().setStartFormOpen(true);
  });
  render(<StartRunDialog />);
  return { sent, box: screen.getByRole('checkbox', { name: /Run in its own cgroup/ }) as HTMLInputElement };
}

async function startWith(sent: readonly unknown[]) {
  fireEvent.change(screen.getByRole('textbox', { name: /Command line/ }), { target: { value: 'node worker.mjs' } });
  fireEvent.click(screen.getByRole('button', { name: 'Start run' }));
  await waitFor(() => expect(sent.length).toBe(1));
}

describe('the cgroup box of the New Run form', () => {
  it('is enabled where the probe found a parent, and a ticked box sends cgroup: true', async () => {
    const { sent, box } = openForm(AVAILABLE);
    expect(box.disabled).toBe(false);
    expect(box.checked).toBe(false);
    expect(screen.getByTestId('cgroup-description').textContent).toContain('/sys/fs/cgroup/unified/treewarden');
    fireEvent.click(box);
    expect(box.checked).toBe(true);
    await startWith(sent);
    expect(sent[0]).toMatchObject({ type: 'startRun', command: 'node', cgroup: true });
  });

  it('sends no cgroup when the box is left unticked', async () => {
    const { sent } = openForm(AVAILABLE);
    await startWith(sent);
    expect(sent[0]).not.toHaveProperty('cgroup');
  });

  it('is disabled, saying the probe reason, where no parent exists', () => {
    const { box } = openForm(MISSING);
    expect(box.disabled).toBe(true);
    const description = screen.getByTestId('cgroup-description');
    expect(description.textContent).toContain(MISSING.available ? '' : MISSING.reason);
    expect(box.getAttribute('aria-describedby')).toBe(description.id);
  });

  it('is disabled where the host did not say (no capabilities in the snapshot)', async () => {
    const { sent, box } = openForm(undefined);
    expect(box.disabled).toBe(true);
    expect(screen.getByTestId('cgroup-description').textContent).toContain('does not say');
    await startWith(sent);
    expect(sent[0]).not.toHaveProperty('cgroup');
  });
});

describe('which path enforced the limits, in the run details', () => {
  function showDetails(overrides: Parameters<typeof makeRun>[0]) {
    const run = makeRun(overrides);
    installFakeBridge(() => okReply({ entries: [] }));
    act(() => {
      useAppStore.getState().applySnapshot(makeSnapshot({ leases: [makeLease({ runs: [run] })] }));
      useAppStore.getState().setDetailsFolded(false);
      useAppStore.getState().selectRun(run.id);
    });
    render(<RunDetails />);
  }

  it('names the cgroup and the method of each limit', () => {
    showDetails({
      limits: { maxProcs: 20 },
      limitEnforcement: 'cgroup',
      limitMethods: { 'max-procs': 'cgroup.procs' },
      cgroup: '/sys/fs/cgroup/unified/treewarden/run-1',
    });
    expect(screen.getByTestId('limit-enforcement').textContent).toBe(
      'limits enforced by cgroup /sys/fs/cgroup/unified/treewarden/run-1 (max-procs: cgroup.procs)',
    );
  });

  it('says polling where polling enforced them', () => {
    showDetails({ limits: { maxProcs: 20 }, limitEnforcement: 'polling', limitMethods: { 'max-procs': 'polling' } });
    expect(screen.getByTestId('limit-enforcement').textContent).toBe('limits enforced by polling (max-procs: polling)');
  });

  it('says nothing (no guess) where no record names the path', () => {
    showDetails({ limits: { maxProcs: 20 } });
    expect(screen.getByText('20 processes')).toBeTruthy();
    expect(screen.queryByTestId('limit-enforcement')).toBeNull();
  });
});
