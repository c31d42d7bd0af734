import type { Cluster, Redis } from 'ioredis';
import { billingEvent } from '../../domain/balance/billing-events';
import type { SubscriptionEnding } from '../../handlers/port-out/ports';
import { decodeOutcome } from './balance-outcome';
import { renewalDueKey, subscriberKeys } from './keys';
import { runScript } from './scripts';

export interface SubscriptionEndingSettings {
  keyPrefix: string;
  ledgerRetention: number;
}

/** The ledger's operation name of a subscription's end by a port-out. */
export const PORT_OUT_OPERATION = 'PortOut';

/**
 * A subscription's end by a port-out over Redis: one atomic step (subscriptionPortOut-4.lua) closes the
 * balances and marks the subscription PORTED_OUT, then the number leaves the renewal schedule (a global
 * key, so a call of its own; a renewal that still finds it sees it inactive and does nothing).
 */
export function createRedisSubscriptionEnding(redis: Redis | Cluster, settings: SubscriptionEndingSettings): SubscriptionEnding {
  return {
    async endByPortOut(gpsi, portOutId, at, causeId) {
      const keys = subscriberKeys(settings.keyPrefix, gpsi);
      const context = { gpsi, at: at.toISOString(), causeId, correlationId: causeId, operation: PORT_OUT_OPERATION, retention: settings.ledgerRetention, portOutId };
      const [json, replayed] = await runScript<[string, number]>(
        redis,
        'subscriptionPortOut',
        [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(causeId)],
        [JSON.stringify(context)],
      );
      await redis.zrem(renewalDueKey(settings.keyPrefix), gpsi);
      if (json === '') return [];
      const outcome = decodeOutcome(json, replayed === 1);
      return [billingEvent('SubscriptionPortedOut', outcome, outcome.subscription.subscriptionId)];
    },
  };
}
