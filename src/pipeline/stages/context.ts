import type { Logger } from 'pino';
import { asRetriable } from '../../contract/errors';
import type { Codec } from '../../contract/codec';
import type { HandlerRegistration, Refusal } from '../../contract/handlers';
import type { Domain, TopicRole } from '../../contract/topics';
import type { PartitionCount, RecordHeaders, Outbound, RecordPosition } from '../../contract/transport';
import type { Authenticator, Authorizer, CustomerScope, PartnerAdmission } from '../../security/access';
import type { RejectedBudget } from '../../security/rejected-budget';
import type { EnvelopeRules } from '../envelope';
import type { EventRouting } from '../event-routes';
import type { DeadLetterSink } from '../outbound';

// What the pipeline's stages share: the record, the processor's dependencies, what each stage hands the
// next. The stages are admit.ts → route.ts → decode.ts → validate.ts → handle.ts, composed by
// ../command-processor.ts; answer.ts holds the replies any of them may give.

/** One command record as consumed: what every stage reads. */
export interface CommandRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeaders;
  timestamp: string;
}

export interface ProcessorDeps {
  codec: Codec;
  handlers: ReadonlyMap<string, HandlerRegistration>;
  topics: Readonly<Record<TopicRole, string>>;
  /** The DLQ topic and the key that seals dead letters. */
  deadLetters: DeadLetterSink;
  envelopeRules: Readonly<Record<Domain, EnvelopeRules>>;
  maxMessageBytes: number;
  /** Commands whose record timestamp is older than this are refused unapplied (STALE_COMMAND): their outcome may be forgotten. */
  maxCommandAgeMs: number;
  serviceName: string;
  clock: () => Date;
  log: Logger;
  /** Classifies infrastructure failures thrown by handlers' adapters as retriable. */
  isRetriable: (error: unknown) => boolean;
  /** Who sent the command (Authorization header): src/security. */
  authenticator: Authenticator;
  /** What it may act for (wholesaleCustomerId header within the caller's subtree). */
  authorizer: Authorizer;
  /** Per-partner command rate and idempotency quota. */
  admission: PartnerAdmission;
  /** Refusals (UNAUTHORIZED, FORBIDDEN) answered or recorded per claimed partner; past it only counted. */
  rejectedBudget: RejectedBudget;
  /** Which topics an event goes to: the operator's and its owning partner's. */
  routing: EventRouting;
  /** Partition counts (cached): whether a requested reply topic exists, and its partitions. */
  partitionCount: PartitionCount;
}

/** A refused command: why, and what was done with it (answered, recorded for the operator, or only counted). */
export interface Rejection {
  reason: 'UNAUTHORIZED' | 'FORBIDDEN';
  /** dropped: refused past the budget; shed: not even verified, the budget being spent (a flood). */
  action: 'answered' | 'recorded' | 'dropped' | 'shed';
}

/**
 * A command let in: for whom, whether the partner's rate and quota counted it, and whether it may only
 * replay a recorded outcome (a change over the rate, past the quota or too old: a recorded outcome always wins).
 */
export interface Admitted {
  scope: CustomerScope;
  /** Counted against the partner's rate: given back when it turns out to replay a recorded outcome. */
  charged: boolean;
  /** A change counted against the quota: uncounted again when it records nothing new. */
  counted: boolean;
  /** Why a new outcome may not be recorded: the rate, the quota, the record's age; it may still replay a recorded one. */
  refuseNew?: Refusal;
}

/** An outcome, and whether this delivery recorded a new one (else a counted change is uncounted). */
export type Handled = ProcessOutcome & { recorded?: boolean };

/** The record a command came in, for the dead letters of its outputs. */
export interface CommandSource {
  record: CommandRecord;
  position: RecordPosition;
}

export interface ProcessOutcome {
  outbound: Outbound[];
  /** "Success", an error code, "DEAD_LETTER" or "REPLAYED". */
  outcome: string;
  operation?: string;
  correlationId: string;
  /** The acting node of an admitted command (for the audit line "who did what"). */
  customer?: string;
  rejection?: Rejection;
}

export const shortName = (recordName: string): string => recordName.slice(recordName.lastIndexOf('.') + 1);

/** When the partner sent the command: its record's timestamp, or now for a record without a usable one. */
export const sentAtMs = (record: CommandRecord, clock: () => Date): number => {
  const timestamp = Number(record.timestamp);
  return Number.isFinite(timestamp) && timestamp > 0 ? timestamp : clock().getTime();
};

/** A call to Redis (or another store) the stage cannot do without: its failure makes the record retriable. */
export async function retriable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asRetriable(error);
  }
}
