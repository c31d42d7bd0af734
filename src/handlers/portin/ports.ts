import type { PortStatus } from '../../domain/portin/lifecycle';
import type { PortInRequest } from '../../domain/portin/request';
import type { FollowUp } from '../../domain/portin/transitions';
import type { OutgoingMessage } from '../../contract/messages';

/**
 * What the port-in handlers need from storage (implemented over Redis in src/adapters/redis/portin-store.ts,
 * in memory in the unit tests). A number's requests live together (one hash tag); the partner-transaction
 * index, the port-order index and the expiry schedule live elsewhere and are written in crash-safe order.
 */
export interface RequestRef {
  gpsi: string;
  requestId: string;
}

/** What the number's current request must still be for a write to happen (compare-and-set). */
export interface Expectation {
  /** null: the number must have no request at all. */
  requestId: string | null;
  portOrderVersion?: number;
  portStatus?: PortStatus;
}

/**
 * The outcome of one cause (command, NP response, expiry), recorded with its write so a replay repeats it
 * exactly: the same reply, the same messages (same event ids), the same follow-ups.
 */
export interface RecordedOutcome {
  reply?: Record<string, unknown>;
  messages: OutgoingMessage[];
  followUps: FollowUp[];
  /**
   * The command whose change this is, and its payload's fingerprint: the same command id back with another
   * payload is answered CONFLICT, not replayed. Absent for an NP response or an expiry, and in a record
   * written before commands replayed from these records (format 1).
   */
  by?: RecordedBy;
}

export interface RecordedBy {
  commandId: string;
  fingerprint: string;
}

/** What a change starts from, read in one step on the number's slot. */
export interface NumberState {
  /** The outcome recorded for the cause: it was handled already. */
  recorded?: RecordedOutcome;
  /** The number's current request. */
  current?: PortInRequest;
  /** Its subscription's status (PENDING, ACTIVE, CANCELLED), if it has one. */
  subscriptionStatus?: string;
}

export type WriteMode =
  /** The request is rewritten in place. */
  | 'update'
  /** A new request takes the number; the finished one moves to the number's history. */
  | 'replace';

export type WriteResult = { kind: 'written' | 'replayed'; outcome: RecordedOutcome } | { kind: 'stale' };

export type TransactionClaim =
  /** Go on: this command owns the partner transaction (requestId: the request it creates). */
  | { kind: 'claimed'; requestId: string }
  /** An earlier command with the same payload finished: answer its reply. */
  | { kind: 'duplicate'; reply: Record<string, unknown> }
  /** The partner transaction id was used with another payload. */
  | { kind: 'mismatch' }
  /** An earlier command with the same payload is still being handled. */
  | { kind: 'busy' };

export interface TransactionClaimRequest {
  commandId: string;
  payloadHash: string;
  gpsi: string;
  requestId: string;
  now: Date;
}

export interface PortInStore {
  /** The number's current request (the latest one). */
  current(gpsi: string): Promise<PortInRequest | undefined>;
  /** A request by id: the number's current one or one in its history. */
  byRequest(ref: RequestRef): Promise<PortInRequest | undefined>;
  /** In one step: the outcome recorded for a cause on this number, its current request and its subscription's status. */
  readForChange(gpsi: string, causeId: string): Promise<NumberState>;
  /**
   * Atomically: if an outcome is recorded for `causeId`, returns it (replayed); else if the number's
   * current request no longer matches `expected`, returns stale; else writes `next` per `mode` and records
   * `outcome` for `causeId`.
   */
  write(gpsi: string, causeId: string, expected: Expectation, mode: WriteMode, next: PortInRequest, outcome: RecordedOutcome): Promise<WriteResult>;

  /** Claims (owner, partnerTransactionId) for a CreatePortIn before anything else is written. */
  claimTransaction(owner: string, partnerTransactionId: string, claim: TransactionClaimRequest): Promise<TransactionClaim>;
  /** Marks the claim finished with the reply a retry with the same payload gets. */
  settleTransaction(owner: string, partnerTransactionId: string, commandId: string, reply: Record<string, unknown>): Promise<void>;
  /** Gives an unfinished claim up (the create was refused before anything else was written). */
  releaseTransaction(owner: string, partnerTransactionId: string, commandId: string): Promise<void>;
  findTransaction(owner: string, partnerTransactionId: string): Promise<RequestRef | undefined>;

  /** Indexes the NP's portOrderId; false when it already names another request. Idempotent. */
  indexPortOrder(portOrderId: string, ref: RequestRef): Promise<boolean>;
  findPortOrder(portOrderId: string): Promise<RequestRef | undefined>;

  scheduleExpiry(member: string, deadline: Date): Promise<void>;
  /** Members whose deadline has passed, each leased for `leaseMs` so other sweepers skip it meanwhile. */
  claimDueExpiries(now: Date, leaseMs: number, limit: number): Promise<string[]>;
  completeExpiry(member: string): Promise<void>;
}

/** What eligibility needs to know about a number; implemented over Redis by the subscription store. */
/** What eligibility needs to know about a number, read in one step: its subscription's status and its current request. */
export interface NumberFacts {
  read(gpsi: string): Promise<{ subscriptionStatus?: string; portIn?: PortInRequest }>;
}
