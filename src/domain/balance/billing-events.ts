import { sha1Hex } from '../digest';
import type { OutgoingMessage } from '../../contract/messages';
import { totalOf, type Amounts, type ShownSubBalance, type SubBalance, type SubBalanceChange } from './model';
import type { BalanceOutcome } from './outcome';
import { balanceRecord, type BillingEvent } from './records';
import type { CreditEvent, ReservationEvent, TransferEvent } from '../balance-operations/records';
import { fromMilli } from './units';

// Billing events (wholesale.balance.events.v1, key = gpsi, CloudEvents binary headers), built from a
// recorded outcome only, so a replay publishes byte-for-byte the same event under the same id. Every event
// carries each sub-balance concerned with its amounts before and after: billing can rebuild every balance.

/** A UUID-shaped id derived from a seed (name-based, like UUID v5), stable across replays. */
export function deterministicId(seed: string): string {
  const hex = sha1Hex(seed);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Amounts as the wire shows them (service-spec 2.10 names, units not milli-units). */
export const wireAmounts = (a: Amounts) => ({
  remainingBalance: fromMilli(a.remaining),
  allocatedBalance: fromMilli(a.allocated),
  rollOverBalance: fromMilli(a.rollover),
  totalBalance: fromMilli(totalOf(a)),
  purchasedBalance: fromMilli(a.purchased),
});

const iso = (ms: number): string => new Date(ms).toISOString();

/** A dated bucket's validity (TMF654 validFor) and the purchased credit's end, as the wire shows them (null: none). */
const wireDates = (b: Pick<SubBalance, 'validFor' | 'purchasedUntil'>) => ({
  validFor: b.validFor ? { startDateTime: iso(b.validFor.start), endDateTime: iso(b.validFor.end) } : null,
  purchasedValidUntil: b.purchasedUntil === undefined ? null : iso(b.purchasedUntil),
});

/**
 * A sub-balance as service-spec 2.10 shows it, plus the bucket it belongs to, its validity, its purchased
 * credit's end, and what reservations hold of it (reserved; available = remaining − reserved).
 */
export const wireSubBalance = (b: ShownSubBalance) => ({
  subBalanceInstId: b.subBalanceInstId,
  subBalanceType: b.subBalanceType,
  ...wireAmounts(b),
  unitType: b.unitType,
  bucketRefId: b.bucketRefId,
  ...wireDates(b),
  reservedBalance: fromMilli(b.reserved ?? 0),
  availableBalance: fromMilli(Math.max(0, b.remaining - (b.reserved ?? 0))),
});

export const wireChange = (c: SubBalanceChange) => ({
  change: c.change,
  subBalanceInstId: c.subBalanceInstId,
  bucketRefId: c.bucketRefId,
  subBalanceType: c.subBalanceType,
  unitType: c.unitType,
  quantity: c.quantity === undefined ? null : fromMilli(c.quantity),
  before: c.before ? wireAmounts(c.before) : null,
  after: c.after ? wireAmounts(c.after) : null,
  ...wireDates(c),
});

/** The fields only some events carry, taken from the outcome. */
function specificFields(type: Exclude<BillingEvent, 'BalanceThresholdReached'>, o: BalanceOutcome): Record<string, unknown> {
  const s = o.subscription;
  switch (type) {
    case 'SubscriptionActivated':
      return {
        primaryBucketRefId: s.primaryBucketRefId ?? null,
        addOnBucketRefIds: o.bucketRefIds ?? [],
        billCycleFrequency: s.billCycleFrequency,
        billCycleStartDay: s.billCycleStartDay,
        billCycleTimeZone: s.billCycleTimeZone,
        cycleStart: s.cycleStart ?? null,
        nextRenewalAt: s.nextRenewalAt ?? null,
      };
    case 'SubscriptionCancelled':
    case 'SubscriptionPortedOut':
      return { reason: o.reason ?? null };
    case 'BucketsAdded':
    case 'BucketsCancelled':
      return { bucketRefIds: o.bucketRefIds ?? [] };
    case 'PrimaryBucketSwapped':
      return { fromBucketRefId: o.fromBucketRefId ?? null, toBucketRefId: o.toBucketRefId ?? null, fromWholesalePlanId: o.fromWholesalePlanId ?? null };
    case 'BalancesRenewed':
      return { cycleNo: s.cycleNo ?? 1, cycleStart: s.cycleStart ?? null, nextRenewalAt: s.nextRenewalAt ?? null, billCycleTimeZone: s.billCycleTimeZone };
    case 'BalancesExpired':
      return { expiredAt: o.expiredAt ?? null };
    case 'BalancesUpdated':
      return {};
  }
}

/** An event on the balance events topic with the fields every billing event starts with. */
export function balanceEvent(type: BillingEvent | ReservationEvent | CreditEvent | TransferEvent, outcome: BalanceOutcome, id: string, fields: Record<string, unknown>): OutgoingMessage {
  const s = outcome.subscription;
  return {
    topic: 'balanceEvents',
    recordName: balanceRecord(type),
    key: s.gpsi,
    owner: s.wholesaleCustomerId || undefined,
    value: {
      gpsi: s.gpsi,
      subscriptionId: s.subscriptionId,
      subscriberId: s.subscriberId,
      wholesaleCustomerId: s.wholesaleCustomerId,
      wholesalePlanId: s.wholesalePlanId,
      occurredAt: outcome.at,
      correlationId: outcome.correlationId,
      causeId: outcome.causeId ?? null,
      ...fields,
    },
    cloudEvent: { id, subject: s.gpsi, time: outcome.at },
  };
}

/** One billing event from an outcome; `idSeed` makes its CloudEvents id (same seed on replay → same id). */
export function billingEvent(type: Exclude<BillingEvent, 'BalanceThresholdReached'>, outcome: BalanceOutcome, idSeed: string): OutgoingMessage {
  return balanceEvent(type, outcome, deterministicId(`${idSeed}/${type}`), { ...specificFields(type, outcome), changes: outcome.changes.map(wireChange) });
}

/** One BalanceThresholdReached per level an outcome's change reached; the id names the sub-balance and level. */
export function thresholdEvents(outcome: BalanceOutcome, idSeed: string): OutgoingMessage[] {
  const s = outcome.subscription;
  return (outcome.thresholds ?? []).map((t) =>
    balanceEvent('BalanceThresholdReached', outcome, deterministicId(`${idSeed}/BalanceThresholdReached/${t.subBalanceInstId}/${t.percent}`), {
      cycleNo: s.cycleNo ?? 1,
      cycleStart: s.cycleStart ?? null,
      subBalanceInstId: t.subBalanceInstId,
      bucketRefId: t.bucketRefId,
      subBalanceType: t.subBalanceType,
      unitType: t.unitType,
      thresholdPercent: t.percent,
      balance: wireAmounts(t.amounts),
    }),
  );
}
