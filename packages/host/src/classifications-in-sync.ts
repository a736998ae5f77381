/**
 * The engine and the protocol each list the run classifications (the protocol stays free of the
 * engine, since the UI bundles it). The host imports both, so the check lives here: if either list
 * gains a value the other lacks, this file stops compiling and the error names the value.
 * Type-only: nothing here exists at run time. The limit names get the same check below.
 */
import type { CLASSIFICATIONS as ENGINE_CLASSIFICATIONS } from '@treewarden/engine/run/types';
import type { CLASSIFICATIONS as PROTOCOL_CLASSIFICATIONS } from '@treewarden/protocol';

type EngineClassification = (typeof ENGINE_CLASSIFICATIONS)[number];
type ProtocolClassification = (typeof PROTOCOL_CLASSIFICATIONS)[number];

/** Compiles only when T is empty: "Type '"x"' does not satisfy the constraint 'never'" names the drifted value. */
type ExpectNone<T extends never> = T;

/** Exported so it counts as used; both directions must be empty for the two lists to be the same set. */
export type ClassificationsInSync = [
  onlyInEngine: ExpectNone<Exclude<EngineClassification, ProtocolClassification>>,
  onlyInProtocol: ExpectNone<Exclude<ProtocolClassification, EngineClassification>>,
];

type EngineLimitName = import('@treewarden/engine').LimitName;
type ProtocolLimitName = import('@treewarden/protocol').LimitTrip['name'];

/** The same check for the limit names a run's `limitTrip` carries. */
export type LimitNamesInSync = [
  onlyInEngine: ExpectNone<Exclude<EngineLimitName, ProtocolLimitName>>,
  onlyInProtocol: ExpectNone<Exclude<ProtocolLimitName, EngineLimitName>>,
];
