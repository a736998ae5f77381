/**
 * What a guardian is given to work with (its state paths, identity, containment, run starter, tree
 * kill, table and cookie readers, message channel): a separate module, so the guardian and its
 * sweep both use it without importing each other.
 */

import type { KillTreeFn } from '../ending/end-members.js';
import type { KillTreeOptions } from '../kill/types.js';
import type { CookieReader } from '../membership/run-members.js';
import type { Run, RunSpec } from '../run/types.js';
import type { StatePaths } from '../state/state-dir.js';
import type { ProcessIdentity, ProcessTable } from '../table/types.js';
import type { Containment } from './containment-types.js';
import type { GuardianMessage } from './protocol.js';

export interface GuardianDeps {
  readonly paths: StatePaths;
  readonly self: ProcessIdentity;
  readonly containment: Containment;
  /** `environ`: the holder's base environment block for this run (protocol.ts), under `spec.env`. */
  startRun(spec: RunSpec, environ?: string): Run;
  readonly killTree: KillTreeFn;
  readTable(): ProcessTable | null;
  readonly readCookies: CookieReader;
  send(message: GuardianMessage): void;
  readonly killOptions?: KillTreeOptions;
  log?(line: string): void;
}
