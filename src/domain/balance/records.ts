// Avro record names of the balance contract (schemas/balance/*.avsc).

export const BALANCE_NAMESPACE = 'wholesale.balance.v1';

/** The commands; each replies with `<name>Reply`. QueryBalanceHistory is beyond the spec. */
export const BALANCE_COMMANDS = ['AddBuckets', 'SwapPrimaryBucket', 'CancelBuckets', 'QueryBalances', 'UpdateBalances', 'QueryBalanceHistory'] as const;
export type BalanceCommand = (typeof BALANCE_COMMANDS)[number];

/** Billing events on the balance events topic. */
export const BILLING_EVENTS = [
  'SubscriptionActivated',
  'SubscriptionCancelled',
  'BucketsAdded',
  'PrimaryBucketSwapped',
  'BucketsCancelled',
  'BalancesUpdated',
  'BalancesRenewed',
  'BalanceThresholdReached',
  'BalancesExpired',
  'SubscriptionPortedOut',
] as const;
export type BillingEvent = (typeof BILLING_EVENTS)[number];

export const balanceRecord = (name: string): string => `${BALANCE_NAMESPACE}.${name}`;
