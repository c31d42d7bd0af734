import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import type { Catalog } from '../domain/catalog/catalog';
import type { SubscriptionLifecycle } from '../domain/subscription';
import type { PublishEvents } from '../pipeline/event-publisher';
import type { RedisClient } from '../adapters/redis/client';
import { createRedisPortInStore } from '../adapters/redis/portin-store';
import { RedisNumberFacts } from '../adapters/redis/number-facts';
import type { PortInDeps } from '../handlers/portin/deps';
import { createExpirySweeper, type ExpirySweeper } from '../schedulers/portin-expiry';

/** Builds the port-in side's adapters from the configuration (composition only, no logic). */
export function createPortInComponents(deps: { config: ServiceConfig; catalog: Catalog; redis: RedisClient; subscriptions: SubscriptionLifecycle }): PortInDeps {
  const { config } = deps;
  return {
    store: createRedisPortInStore(deps.redis, {
      keyPrefix: config.redis.keyPrefix,
      outcomeTtlSeconds: config.limits.idempotencyTtlSeconds,
      claimLeaseMs: config.portin.claimLeaseMs,
    }),
    numbers: new RedisNumberFacts(deps.redis, config.redis.keyPrefix),
    subscriptions: deps.subscriptions,
    catalog: deps.catalog,
    settings: config.portin,
    nonPortableRanges: config.nonPortableRanges,
  };
}

export function createPortInExpiry(deps: { portin: PortInDeps; config: ServiceConfig; publish: PublishEvents; log: Logger; clock?: () => Date }): ExpirySweeper {
  const { config } = deps;
  return createExpirySweeper(deps.portin, {
    intervalMs: config.portin.expirySweepIntervalMs,
    leaseMs: config.portin.expiryLeaseMs,
    batchSize: 100,
    clock: deps.clock ?? (() => new Date()),
    log: deps.log.child({ component: 'portin-expiry' }),
    publish: deps.publish,
  });
}
