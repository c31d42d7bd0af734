import type { OutgoingMessage } from '../contract/messages';

/**
 * The seam between port-in and balances. A port-in creates the subscription PENDING with its plan,
 * buckets and products; the port's completion activates it (sub-balances instantiated from the catalog,
 * SubscriptionActivated billing event); a cancelled port cancels it. Balances implement this
 * (src/adapters/redis/subscription-store.ts); port-in handlers receive it injected.
 */
export interface ProductChange {
  productId: string;
  action: string;
  characteristics: { key: string; value: string }[];
}

export interface NewSubscription {
  gpsi: string;
  wholesaleCustomerId: string;
  subscriberId: string;
  wholesalePlanId: string;
  /** Add-on buckets requested at creation (bucketRefId of the CreatePortIn command). */
  bucketRefIds: string[];
  products: ProductChange[];
  billCycleFrequency: 'MONTHLY';
  billCycleStartDay: number;
  iccid?: string;
  pei?: string;
  eid?: string;
  eSIMDeliveryMethod?: string;
}

export interface SubscriptionLifecycle {
  /** Idempotent by commandId; a number that already has a non-cancelled subscription is left untouched (returns false). */
  createPending(subscription: NewSubscription, commandId: string, at: Date): Promise<boolean>;
  /** PENDING → ACTIVE; returns the billing events to publish (SubscriptionActivated). Idempotent. */
  activate(gpsi: string, at: Date, causeId: string, correlationId?: string): Promise<OutgoingMessage[]>;
  /** PENDING → CANCELLED; returns the billing events (SubscriptionCancelled). Idempotent. */
  cancel(gpsi: string, at: Date, reason: string, causeId: string, correlationId?: string): Promise<OutgoingMessage[]>;
  /** Status of the number's subscription, or undefined when it has none. */
  status(gpsi: string): Promise<{ status: string; wholesaleCustomerId: string } | undefined>;
}
