import type { RedisClient } from '../../../src/adapters/redis/client';
import type { ServiceConfig } from '../../../src/app/config';
import { carryOverTypesOf, type Catalog } from '../../../src/domain/catalog/catalog';
import { createBillingClock } from '../../../src/domain/balance/clock';
import { createRedisBalanceStore } from './balance-store';
import { createRedisRenewalStore } from './renewal-store';
import { createRedisSubscriptionStore } from './subscription-store';

/**
 * The balance side's Redis adapters as released at 938e116, the last release whose stored records carry no
 * format version: its function library (scripts.generated.ts) and the TypeScript that writes and reads
 * what it stores, copied unchanged but for their imports. A worker of that release and one of this run side
 * by side during a rolling restart; test/integration/record-formats.test.ts runs the two on one Redis.
 */
export function createPreviousRelease(deps: { config: ServiceConfig; catalog: Catalog; redis: RedisClient }) {
  const { config, catalog, redis } = deps;
  const clock = createBillingClock(config.balance.timeScale, config.balance.clockOriginMs);
  const settings = { keyPrefix: config.redis.keyPrefix, outcomeTtlSeconds: config.limits.idempotencyTtlSeconds, ledgerRetention: config.balance.ledgerRetention };
  return {
    clock,
    subscriptions: createRedisSubscriptionStore({ redis, catalog, clock, settings }),
    balances: createRedisBalanceStore(redis, { ...settings, clock }),
    renewals: createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: config.balance.ledgerRetention, carryOver: carryOverTypesOf(catalog) }),
  };
}
