import type { ShownSubBalance, SubBalanceChange } from './model';
import type { ThresholdReached } from './thresholds';

/** The subscription as every balance outcome describes it (read in the same atomic step as the change). */
export interface SubscriptionFacts {
  gpsi: string;
  subscriptionId: string;
  subscriberId: string;
  wholesaleCustomerId: string;
  wholesalePlanId: string;
  primaryBucketRefId?: string;
  billCycleFrequency: string;
  billCycleStartDay: number;
  /** IANA zone whose midnight starts the cycles (UTC for subscriptions created before zones). */
  billCycleTimeZone: string;
  status: string;
  /** Bill cycle number (1 = the cycle of activation), its start and the next renewal; absent while PENDING. */
  cycleNo?: number;
  cycleStart?: string;
  nextRenewalAt?: string;
}

/**
 * What one change to a subscription did, as recorded with it in Redis: replies and billing events are
 * built from it alone, so a redelivered command (which gets the recorded outcome back) answers and
 * publishes exactly the same.
 */
export interface BalanceOutcome {
  /** Time of the change (ISO 8601) and the correlation id of its cause. */
  at: string;
  correlationId: string;
  /** Command id (balance commands) or the port-in's cause id (activation, cancellation). */
  causeId?: string;
  subscription: SubscriptionFacts;
  changes: SubBalanceChange[];
  /** Every sub-balance after the change, as its reply shows them. */
  balances: ShownSubBalance[];
  /** Buckets added or cancelled (AddBuckets, CancelBuckets, the add-ons of an activation). */
  bucketRefIds?: string[];
  fromBucketRefId?: string;
  toBucketRefId?: string;
  /** The plan before a SwapPrimaryBucket (the subscription's facts carry the plan after it). */
  fromWholesalePlanId?: string;
  /** Usage thresholds the change made sub-balances reach (UpdateBalances), each once per cycle. */
  thresholds?: ThresholdReached[];
  /** Why a subscription was cancelled. */
  reason?: string;
  /** The validity end (billing time, ISO 8601) an expiry was run for: the outcome of a BalancesExpired. */
  expiredAt?: string;
  /** True when this is the recorded outcome of an earlier delivery, nothing was applied now. */
  replayed: boolean;
}

/** One ledger entry: a change with when, why and by which operation. */
export interface LedgerEntry extends SubBalanceChange {
  at: string;
  correlationId: string;
  operation: string;
}
