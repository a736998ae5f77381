/**
 * A malformed lease file in the registry must not stop the host's snapshots: the good leases keep
 * showing, every tick keeps succeeding, and the bad file is warned about once, by name.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir, readProcEntry, writeLeaseFile } from '@treewarden/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../../../test-support/index.js';
import { EVENT_WAIT_MS, latestSnapshot, useTestHost } from './helpers.js';

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.message);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('engine host: lease files', () => {
  const startHost = useTestHost();

  it(
    'keeps snapshotting the good leases past a malformed lease file, and warns about it once',
    async () => {
      process.on('warning', onWarning);
      const { events, stateDir } = startHost();
      const paths = ensureStateDir(stateDir);
      const self = { pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '' };
      writeFileSync(join(paths.leasesDir, 'bad.json'), '{"v":1,"id":"bad"}', { mode: 0o600 });
      writeFileSync(join(paths.leasesDir, 'torn.json'), '{"v":1,"id":"lease-t', { mode: 0o600 });
      writeLeaseFile(paths, {
        v: 1,
        id: 'lease-foreign-good',
        name: 'good',
        holder: self,
        guardian: self,
        createdAt: new Date().toISOString(),
        subreaper: false,
        runs: [],
      });
      await pollUntil(() => latestSnapshot(events)?.leases.some((lease) => lease.id === 'lease-foreign-good'), {
        deadlineMs: EVENT_WAIT_MS,
        description: 'a snapshot showing the good lease',
      });
      const snapshots = () => events.filter((event) => event.type === 'snapshot').length;
      const seen = snapshots();
      await pollUntil(() => snapshots() >= seen + 3, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'three more snapshots',
      });
      expect(warnings.filter((warning) => warning.includes('poll failed'))).toEqual([]);
      const skipped = warnings.filter((warning) => warning.includes('skipped lease file'));
      expect(skipped.map((warning) => warning.replace(/.*leases\//, '').replace(/:.*/, '')).sort()).toEqual([
        'bad.json',
        'torn.json',
      ]);
    },
    EVENT_WAIT_MS * 3,
  );
});
