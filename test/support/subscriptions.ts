import { randomUUID } from 'node:crypto';
import type { NewSubscription, SubscriptionLifecycle } from '../../src/domain/subscription';
import type { OutgoingMessage } from '../../src/contract/messages';

/**
 * Creates and activates subscriptions directly through the subscription store, so balance tests (and
 * others) do not depend on the port-in journey.
 */
export const randomGpsi = (): string => `1${String(Math.floor(Math.random() * 1e13)).padStart(13, '0')}`;

export const randomCustomer = (): string => `C${randomUUID().replace(/-/g, '').slice(0, 11)}`;

export type SubscriptionOptions = Partial<Omit<NewSubscription, 'products' | 'billCycleFrequency'>> & { at?: Date };

export interface TestSubscription extends NewSubscription {
  /** The SubscriptionActivated event (empty when only created). */
  events: OutgoingMessage[];
}

export function newSubscription(options: SubscriptionOptions = {}): NewSubscription {
  return {
    gpsi: options.gpsi ?? randomGpsi(),
    wholesaleCustomerId: options.wholesaleCustomerId ?? randomCustomer(),
    subscriberId: options.subscriberId ?? `SUB-${randomUUID().slice(0, 8)}`,
    wholesalePlanId: options.wholesalePlanId ?? 'WP-BASIC',
    bucketRefIds: options.bucketRefIds ?? [],
    products: [],
    billCycleFrequency: 'MONTHLY',
    billCycleStartDay: options.billCycleStartDay ?? 1,
  };
}

/** A PENDING subscription, as CreatePortIn leaves it. */
export async function createPendingSubscription(store: SubscriptionLifecycle, options: SubscriptionOptions = {}): Promise<TestSubscription> {
  const subscription = newSubscription(options);
  const created = await store.createPending(subscription, `create-${randomUUID()}`, options.at ?? new Date());
  if (!created) throw new Error(`${subscription.gpsi} already has a subscription`);
  return { ...subscription, events: [] };
}

/** An ACTIVE subscription with its sub-balances, as a completed port-in leaves it. */
export async function createActiveSubscription(store: SubscriptionLifecycle, options: SubscriptionOptions = {}): Promise<TestSubscription> {
  const subscription = await createPendingSubscription(store, options);
  const events = await store.activate(subscription.gpsi, options.at ?? new Date(), `activate-${randomUUID()}`);
  return { ...subscription, events };
}
