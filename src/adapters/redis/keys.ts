// Redis key layout. Every key of one subscriber shares the hash tag `{<gpsi>}` so one Lua script can touch
// them all on a single node and on a Redis Cluster alike. Never put a hash tag in the prefix: it would
// move everything into one slot and hide cross-slot bugs.

export const subscriberTag = (gpsi: string): string => `{${gpsi}}`;

export const subscriberKeys = (prefix: string, gpsi: string) => {
  const base = `${prefix}${subscriberTag(gpsi)}`;
  return {
    /** Hash: status (PENDING | ACTIVE | CANCELLED | PORTED_OUT), wholesaleCustomerId, wholesalePlanId, … */
    subscription: `${base}:sub`,
    /** Hash: the port-in request for this number (current one). */
    portIn: `${base}:portin`,
    /**
     * Hash: instance number (seq; subBalanceInstId = `<gpsi>-<seq>`) → the sub-balance as positional text
     * (quantities in milli-units), kept short so the hash stays a listpack. Format: scripts/lib/balance/.
     * Once the subscription is ACTIVE, also its owner under BALANCES_OWNER_FIELD.
     */
    balances: `${base}:bal`,
    /** List: the balance ledger, newest first, trimmed to the retention. */
    ledger: `${base}:ledger`,
    /** List: renewal outcomes whose BalancesRenewed event is not yet published. */
    renewalOutbox: `${base}:renewal-outbox`,
    /** Hash: reservation id → the held reservation (format|seq|amount|expiresAt; scripts/lib/balance/6-reservations.lua). */
    reservations: `${base}:reservations`,
    /** List: expired reservations whose ReservationExpired event is not yet published. */
    reservationOutbox: `${base}:reservation-outbox`,
    /** Hash: transfers from this subscription, by transfer id (scripts/lib/balance/7-transfers.lua). */
    transfers: `${base}:transfers`,
    /** Hash: transfers to this subscription, by transfer id: credited (with its ledger row) or refused. */
    transferCredits: `${base}:transfer-credits`,
    /** Hash: subscriptionId -> JSON of an ended (ported-out) subscription's hash, kept when the number ported back in. */
    endedSubscriptions: `${base}:sub:ended`,
    /** List: an ended subscription's ledger, renamed there by the command (`endedLedgerOf` in its JSON) that replaced it. */
    endedLedger: (commandId: string) => `${base}:ledger:ended:${commandId}`,
    /** String: the recorded outcome of one command on this subscription (TTL), for redelivery. */
    commandOutcome: (commandId: string) => `${base}:done:${commandId}`,
  };
};

/**
 * The field of the balances hash that holds the subscription's wholesaleCustomerId once it is ACTIVE
 * (OWNER_FIELD in scripts/lib/balance/): ACTIVE is final and the owner never changes, so a query reads
 * the one hash. Absent: not ACTIVE, or activated before the field existed (read the subscription too).
 */
export const BALANCES_OWNER_FIELD = 'o';

/** Sorted set of gpsi by the real time (epoch ms) of their next renewal. One global key, touched alone. */
export const renewalDueKey = (prefix: string): string => `${prefix}balance:renewal-due`;

/** Sorted set of gpsi by the real time (epoch ms) of their first reservation's end. One global key, touched alone. */
export const reservationDueKey = (prefix: string): string => `${prefix}balance:reservation-due`;

/**
 * Sorted set of the transfers a debit may leave pending (the whole order as a format-1 JSON member) by the
 * real time (epoch ms) the pending-transfer sweeper should look at them. One global key, touched alone.
 */
export const transferDueKey = (prefix: string): string => `${prefix}balance:transfer-due`;

export const SUBSCRIPTION_STATUS = { PENDING: 'PENDING', ACTIVE: 'ACTIVE', CANCELLED: 'CANCELLED', PORTED_OUT: 'PORTED_OUT' } as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUS)[keyof typeof SUBSCRIPTION_STATUS];

/**
 * A partner's admission state (scripts/admissionTake-1.lua): its rate-limit token bucket and its count of
 * recorded changes in time buckets, one hash; a hash tag of its own, so partners spread over a Cluster.
 */
export const admissionKey = (prefix: string, partnerId: string): string => `${prefix}admission:{partner:${partnerId}}`;

/** Set of the partners with a webhook registration. One global key, touched alone. */
export const webhookPartnersKey = (prefix: string): string => `${prefix}webhooks:partners`;

/** A partner's webhook keys, under a hash tag of its own (src/webhooks, docs/webhooks.md). */
export const webhookKeys = (prefix: string, partnerId: string) => {
  const base = `${prefix}webhooks:{partner:${partnerId}}`;
  return {
    /** String: the registration as JSON with its format number (src/webhooks/registration.ts). */
    registration: `${base}:registration`,
    /** Stream: events given up, oldest first; the entry id (ms-seq) is when. */
    deadLetters: `${base}:dead-letters`,
    /** Stream: dead letters an operator asked to redeliver; the dispatcher takes them. */
    redeliveries: `${base}:redeliveries`,
  };
};
