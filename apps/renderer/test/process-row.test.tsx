import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { basename } from '../src/components/process-row';
import { ProcessTree } from '../src/components/process-tree';
import { makeProcess, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('process rows', () => {
  it('names a command by its last segment only when it is a path; a kernel name with slashes stays whole', () => {
    expect(basename('/usr/bin/sleep')).toBe('sleep');
    expect(basename('C:\\Windows\\System32\\svchost.exe')).toBe('svchost.exe');
    expect(basename('kworker/0:1H-kblockd')).toBe('kworker/0:1H-kblockd');
    expect(basename('ksoftirqd/0')).toBe('ksoftirqd/0');
    expect(basename('node')).toBe('node');
    expect(basename('/')).toBe('/');
    const kernel = makeProcess({ pid: 14, ppid: 2, command: 'ksoftirqd/0', commandLine: '[ksoftirqd/0]' });
    render(<ProcessTree runId="run-1" processes={[kernel]} rootPid={14} label="tree" />);
    expect(document.querySelector('[data-pid="14"]')?.textContent).toContain('ksoftirqd/0');
  });

  it('shows a zombie as one, naming the parent that has not reaped it', () => {
    const parent = makeProcess({ pid: 100, ppid: 1, command: '/usr/bin/sleep', commandLine: 'sleep 60' });
    const zombie = makeProcess({ pid: 101, ppid: 100, state: 'Z', command: 'sleep', commandLine: '[sleep] <defunct>' });
    render(<ProcessTree runId="run-1" processes={[parent, zombie]} rootPid={100} label="tree" />);
    const row = document.querySelector('[data-pid="101"]') as HTMLElement;
    expect(row.className).toContain('zombie');
    expect(row.textContent).toContain('zombie');
    expect(row.textContent).toContain('not reaped by 100 (run root · sleep)');
    const parentRow = document.querySelector('[data-pid="100"]') as HTMLElement;
    expect(parentRow.textContent).not.toContain('zombie');
  });

  it("names the lease's guardian when it is the one not reaping (the root's parent adopts orphans)", () => {
    const root = makeProcess({ pid: 100, ppid: 50, command: 'node' });
    const adopted = makeProcess({ pid: 102, ppid: 50, state: 'Z', command: 'sh' });
    const other = makeProcess({ pid: 103, ppid: 102, state: 'Z', command: 'sleep' });
    render(<ProcessTree runId="run-1" processes={[root, adopted, other]} rootPid={100} label="tree" />);
    expect(document.querySelector('[data-pid="102"]')?.textContent).toContain(
      "not reaped by 50 (the lease's guardian)",
    );
    expect(document.querySelector('[data-pid="103"]')?.textContent).toContain('not reaped by 102 (sh)');
  });

  it('keeps the escape kind the host decided, even when the root is gone', () => {
    // The root exited; against the parent the comparison alone would say "own group".
    const parent = makeProcess({ pid: 101, ppid: 1, pgid: 101, sid: 90 });
    const escaper = makeProcess({ pid: 102, ppid: 101, pgid: 101, sid: 90, escaped: true, escapedInto: 'session' });
    render(<ProcessTree runId="run-1" processes={[parent, escaper]} rootPid={100} label="tree" />);
    expect(document.querySelector('[data-pid="102"]')?.textContent).toContain('escaped · own session');
  });

  it('marks a descendant that escaped into its own session', () => {
    const root = makeProcess({ pid: 100, ppid: 1, pgid: 100, sid: 100 });
    const escaper = makeProcess({ pid: 102, ppid: 100, pgid: 102, sid: 102, escaped: true });
    const grouped = makeProcess({ pid: 103, ppid: 100, pgid: 103, sid: 100, escaped: true });
    const stays = makeProcess({ pid: 104, ppid: 100, pgid: 100, sid: 100 });
    render(<ProcessTree runId="run-1" processes={[root, escaper, grouped, stays]} rootPid={100} label="tree" />);
    expect(document.querySelector('[data-pid="102"]')?.textContent).toContain('escaped · own session');
    expect(document.querySelector('[data-pid="103"]')?.textContent).toContain('escaped · own group');
    expect(document.querySelector('[data-pid="104"]')?.textContent).not.toContain('escaped');
  });

  it('nests children under their parent with increasing aria-level', () => {
    const root = makeProcess({ pid: 100, ppid: 1 });
    const child = makeProcess({ pid: 101, ppid: 100 });
    render(<ProcessTree runId="run-1" processes={[child, root]} rootPid={100} label="tree" />);
    const items = screen.getAllByRole('treeitem');
    expect(items.map((item) => [item.dataset.pid, item.getAttribute('aria-level')])).toEqual([
      ['100', '1'],
      ['101', '2'],
    ]);
  });
});
