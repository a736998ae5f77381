/** What one rule raises: the exact processes (alive now, by identity) and why, before it gets an id. */
import type { SessionAlertKind } from '@treewarden/protocol';
import type { ProcessEntry } from '../../table/types.js';

export interface AlertDraft {
  readonly kind: SessionAlertKind;
  readonly processes: readonly ProcessEntry[];
  readonly why: string;
}
