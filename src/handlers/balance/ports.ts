import type { FieldProblem } from '../../contract/errors';
import type { SubBalance } from '../../domain/balance/model';
import type { BalanceOutcome, LedgerEntry } from '../../domain/balance/outcome';
import type { SubBalanceSeed } from '../../domain/balance/seeds';
import type { ThresholdLevels } from '../../domain/balance/thresholds';
import type { Validity } from '../../domain/balance/validity';
import type { LocatedId, ValidatedUpdate } from '../../domain/balance/validation';

/**
 * What the balance handlers need from the state store (implemented over Redis Lua scripts in
 * src/adapters/redis/balance-store.ts). Every mutating call is one atomic step that first checks the
 * precondition (an ACTIVE subscription the caller can see) and records its outcome under the command id; a
 * refusal is thrown as a ServiceError, also recorded.
 */
export interface CommandMeta {
  gpsi: string;
  wholesaleCustomerId: string;
  /** Owners whose subscriptions the command may touch (CommandContext.visibleCustomerIds); default: the acting node only. */
  visibleCustomerIds?: readonly string[];
  commandId: string;
  correlationId: string;
  operation: string;
  /** ISO 8601 time of the command (the handler's clock). */
  at: string;
  /**
   * The command payload's fingerprint, kept with the recorded outcome: the same commandId redelivered with
   * another fingerprint is answered CONFLICT instead of the recorded outcome (records without one replay).
   */
  fingerprint?: string;
  /**
   * Set when no new change may be applied (CommandContext.refuseNew: the partner's rate or quota, the
   * record's age, the command's situation): without a recorded outcome this error is thrown and nothing is
   * written; a recorded outcome is still replayed.
   */
  refuseNew?: { code: string; message: string; problems?: FieldProblem[] };
}

export interface BalanceStore {
  addBuckets(meta: CommandMeta, add: { bucketRefIds: string[]; seeds: SubBalanceSeed[] }): Promise<BalanceOutcome>;
  /** Replaces the primary bucket and moves the subscription to `wholesalePlanId`, the plan offering it. */
  swapPrimary(meta: CommandMeta, swap: { bucketRefId: string; wholesalePlanId: string; seeds: SubBalanceSeed[] }): Promise<BalanceOutcome>;
  cancelBuckets(meta: CommandMeta, bucketRefIds: LocatedId[]): Promise<BalanceOutcome>;
  /**
   * `thresholds`: usage levels by bucket; the changed sub-balances report those they reach (outcome.thresholds).
   * `creditValidity`: how long a top-up lasts, by subBalanceType (catalog purchasedCredit); the store dates it.
   */
  updateBalances(meta: CommandMeta, update: ValidatedUpdate, thresholds?: ThresholdLevels, creditValidity?: Readonly<Record<string, Validity>>): Promise<BalanceOutcome>;
  /** `visibleCustomerIds`: the subscription's owner must be one of them (CommandContext.visibleCustomerIds). */
  queryBalances(gpsi: string, visibleCustomerIds: readonly string[]): Promise<{ balances: SubBalance[] }>;
  /** The newest `limit` ledger entries, newest first. */
  /** `subscriptionId`: that subscription of the number only, the live one or an ended one (ported out, the number since ported back in). */
  history(gpsi: string, visibleCustomerIds: readonly string[], limit: number, subscriptionId?: string): Promise<LedgerEntry[]>;
}

/** What the bill-cycle renewal scheduler (src/schedulers/balance-renewal.ts) needs from storage. */
export interface RenewalState {
  status: string;
  billCycleStartDay: number;
  /** IANA zone of the cycle starts; absent = UTC (subscriptions created before zones). */
  billCycleTimeZone?: string;
  nextRenewalAt?: string;
  /** The first validity end (billing time, ISO 8601) of a dated bucket or of purchased credit, if any. */
  nextExpiryAt?: string;
}

export interface PendingRenewal {
  /** Opaque handle to acknowledge the outbox entry once its event is published. */
  token: string;
  outcome: BalanceOutcome;
}

export interface RenewalStore {
  claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<string[]>;
  state(gpsi: string): Promise<RenewalState | undefined>;
  renew(gpsi: string, cycle: { at: string; cycleStart: string; nextRenewalAt: string; correlationId: string }): Promise<'renewed' | 'inactive' | 'not-due'>;
  /** Ends what is valid until `expiredAt` or before (billing time); 'nothing' when another run already did. */
  expire(gpsi: string, expiry: { at: string; expiredAt: string; correlationId: string }): Promise<'expired' | 'inactive' | 'nothing'>;
  pending(gpsi: string): Promise<PendingRenewal[]>;
  acknowledge(gpsi: string, token: string): Promise<void>;
  schedule(gpsi: string, realMs: number): Promise<void>;
  unschedule(gpsi: string): Promise<void>;
}
