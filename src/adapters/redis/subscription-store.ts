import type { Cluster, Redis } from 'ioredis';
import { billingEvent, deterministicId } from '../../domain/balance/billing-events';
import { cycleDaysAt, cycleStartAtOrBefore, DEFAULT_BILL_CYCLE_TIME_ZONE, nextCycleStart } from '../../domain/balance/bill-cycle';
import type { BillingClock } from '../../domain/balance/clock';
import { activationPlan, datedSeeds } from '../../domain/balance/seeds';
import type { Catalog } from '../../domain/catalog/catalog';
import type { NewSubscription, SubscriptionLifecycle } from '../../domain/subscription';
import { ServiceError } from '../../contract/errors';
import type { OutgoingMessage } from '../../contract/messages';
import { decodeOutcome } from './balance-outcome';
import { checkRecordFormat, FORMAT_FIELD, RECORD_FORMAT } from './record-format';
import { renewalDueKey, subscriberKeys } from './keys';
import { runScript } from './scripts';
import { seedArgs } from './seed-args';

export interface SubscriptionStoreSettings {
  keyPrefix: string;
  /** How long createPending remembers a command id and activate its outcome for a cause (seconds). */
  outcomeTtlSeconds: number;
  ledgerRetention: number;
}

export interface SubscriptionStoreDeps {
  redis: Redis | Cluster;
  catalog: Catalog;
  clock: BillingClock;
  settings: SubscriptionStoreSettings;
}

export type SubscriptionStore = SubscriptionLifecycle;

/** Ledger operation names of the lifecycle changes (commands use their record name). */
export const ACTIVATION_OPERATION = 'SubscriptionActivation';

/**
 * The subscription lifecycle over Redis: the subscription hash (status PENDING | ACTIVE | CANCELLED and
 * wholesaleCustomerId, read by port-in eligibility), activation instantiating the sub-balances from the
 * catalog, and the renewal due-set entry of an active subscription.
 */
export function createRedisSubscriptionStore({ redis, catalog, clock, settings }: SubscriptionStoreDeps): SubscriptionStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const dueKey = renewalDueKey(settings.keyPrefix);

  async function createPending(s: NewSubscription, commandId: string, at: Date): Promise<boolean> {
    const keys = keysOf(s.gpsi);
    const fields: Record<string, string> = {
      gpsi: s.gpsi,
      subscriptionId: deterministicId(`${s.gpsi}/${commandId}`),
      subscriberId: s.subscriberId,
      wholesaleCustomerId: s.wholesaleCustomerId,
      wholesalePlanId: s.wholesalePlanId,
      requestedBucketRefIds: JSON.stringify(s.bucketRefIds),
      products: JSON.stringify(s.products),
      billCycleFrequency: s.billCycleFrequency,
      billCycleStartDay: String(s.billCycleStartDay),
      // The plan's zone, fixed for the subscription's life: a later swap does not move its cycle boundaries.
      billCycleTimeZone: catalog.plans.get(s.wholesalePlanId)?.billCycleTimeZone ?? DEFAULT_BILL_CYCLE_TIME_ZONE,
      createdAt: at.toISOString(),
      [FORMAT_FIELD]: String(RECORD_FORMAT),
    };
    for (const optional of ['iccid', 'pei', 'eid', 'eSIMDeliveryMethod'] as const) {
      const value = s[optional];
      if (value !== undefined) fields[optional] = value;
    }
    const created = await runScript<string>(
      redis,
      'subscriptionCreate',
      [keys.subscription, keys.balances, keys.ledger, keys.renewalOutbox, keys.commandOutcome(commandId), keys.endedSubscriptions, keys.endedLedger(commandId), keys.reservations],
      [JSON.stringify(fields), settings.outcomeTtlSeconds, commandId],
    );
    return created === '1';
  }

  async function activate(gpsi: string, at: Date, causeId: string, correlationId?: string): Promise<OutgoingMessage[]> {
    const keys = keysOf(gpsi);
    const [status, planId, requested, startDay, storedZone, format] = await redis.hmget(
      keys.subscription,
      'status',
      'wholesalePlanId',
      'requestedBucketRefIds',
      'billCycleStartDay',
      'billCycleTimeZone',
      FORMAT_FIELD,
    );
    checkRecordFormat(format, 'subscription');
    if (!status || !planId) throw new ServiceError('NOT_FOUND', `No subscription for gpsi ${gpsi}`);
    const plan = catalog.plans.get(planId);
    if (!plan) throw new ServiceError('CONFLICT', `Plan ${planId} of gpsi ${gpsi} is not in the catalog`);
    const billingNow = clock.toBilling(at);
    const day = Number(startDay);
    const zone = storedZone ?? DEFAULT_BILL_CYCLE_TIME_ZONE; // created before time zones: UTC, as it was
    const buckets = activationPlan(catalog, plan, JSON.parse(requested ?? '[]') as string[], cycleDaysAt(billingNow, day, zone));
    const seeds = datedSeeds(buckets.seeds, billingNow.getTime(), zone); // dated add-ons' periods start now
    const context = {
      gpsi,
      at: at.toISOString(),
      causeId,
      correlationId: correlationId ?? causeId,
      operation: ACTIVATION_OPERATION,
      retention: settings.ledgerRetention,
      ttl: settings.outcomeTtlSeconds,
      cycleStart: cycleStartAtOrBefore(billingNow, day, zone).toISOString(),
      nextRenewalAt: nextCycleStart(billingNow, day, zone).toISOString(),
    };
    const payload = {
      wholesalePlanId: planId,
      primaryBucketRefId: buckets.primary.bucketRefId,
      bucketRefIds: buckets.addOns.map((b) => b.bucketRefId),
      seeds: seedArgs(seeds),
    };
    const [json, replayed] = await runScript<[string, number]>(
      redis,
      'subscriptionActivate',
      [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(causeId)],
      [JSON.stringify(context), JSON.stringify(payload)],
    );
    const outcome = decodeOutcome(json, replayed === 1);
    // NX: an entry the scheduler already moved on is left alone; a missing one (crash after the script) is
    // added, due at the next renewal or at the first validity end before it.
    const due = Math.min(Date.parse(outcome.subscription.nextRenewalAt!), ...seeds.flatMap((s) => (s.validFor ? [s.validFor.end] : [])));
    await redis.zadd(dueKey, 'NX', clock.toRealMs(new Date(due)), gpsi);
    return [billingEvent('SubscriptionActivated', outcome, outcome.subscription.subscriptionId)];
  }

  async function cancel(gpsi: string, at: Date, reason: string, causeId: string, correlationId?: string): Promise<OutgoingMessage[]> {
    const context = { gpsi, at: at.toISOString(), reason, causeId, correlationId: correlationId ?? causeId };
    const [json, replayed] = await runScript<[string, number]>(redis, 'subscriptionCancel', [keysOf(gpsi).subscription], [JSON.stringify(context)]);
    if (json === '') return [];
    const outcome = decodeOutcome(json, replayed === 1);
    return [billingEvent('SubscriptionCancelled', outcome, outcome.subscription.subscriptionId)];
  }

  async function status(gpsi: string) {
    const [state, wholesaleCustomerId, format] = await redis.hmget(keysOf(gpsi).subscription, 'status', 'wholesaleCustomerId', FORMAT_FIELD);
    checkRecordFormat(format, 'subscription');
    return state ? { status: state, wholesaleCustomerId: wholesaleCustomerId ?? '' } : undefined;
  }

  return {
    createPending,
    activate,
    cancel,
    status,
  };
}
