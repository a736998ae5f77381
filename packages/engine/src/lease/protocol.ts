/**
 * Messages between a lease holder and its guardian, over the guardian's IPC channel. The lease
 * itself is a separate pipe (fd 3) that carries no messages: its EOF is the only signal that
 * matters, and it arrives however the holder ends, even by SIGKILL of its whole group.
 */
import type { RunEvent, RunOutcome, RunPhase, RunSpec } from '../run/types.js';
import type { ProcessIdentity } from '../table/types.js';

/** The file descriptor of the lease pipe in the guardian. */
export const LEASE_PIPE_FD = 3;

export interface GuardianConfig {
  readonly leaseId: string;
  readonly name: string;
  readonly stateDir: string;
  readonly holder: ProcessIdentity;
  /** Free-form label of the holder ("cli", "vitest", …), recorded in the registry. */
  readonly holderLabel?: string;
  /** The holder's session and group at open: leftovers of a dead holder's own session are leaks. */
  readonly holderSession?: { readonly sid: number; readonly pgid: number };
}

export type HolderMessage =
  | { readonly t: 'start'; readonly runId: string; readonly spec: RunSpec }
  | { readonly t: 'cancel'; readonly runId: string; readonly reason?: string };

/**
 * What the holder writes into the lease pipe just before closing it on release. The pipe is one
 * stream with one writer, so the guardian sees this before the EOF; EOF without it means the
 * holder died.
 */
export const RELEASE_TOKEN = 'release\n';

export type GuardianMessage =
  | { readonly t: 'ready'; readonly guardian: ProcessIdentity; readonly subreaper: boolean }
  | {
      readonly t: 'started';
      readonly runId: string;
      readonly runDir: string;
      readonly phase: RunPhase;
      readonly pid: number | null;
      readonly startTime: string | null;
    }
  | { readonly t: 'event'; readonly runId: string; readonly event: RunEvent }
  | { readonly t: 'ended'; readonly runId: string; readonly outcome: RunOutcome }
  | { readonly t: 'failed'; readonly runId: string; readonly error: string };

export function isHolderMessage(value: unknown): value is HolderMessage {
  if (typeof value !== 'object' || value === null) return false;
  const t = (value as { t?: unknown }).t;
  return t === 'start' || t === 'cancel';
}

export function isGuardianMessage(value: unknown): value is GuardianMessage {
  if (typeof value !== 'object' || value === null) return false;
  const t = (value as { t?: unknown }).t;
  return t === 'ready' || t === 'started' || t === 'event' || t === 'ended' || t === 'failed';
}
