import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import type { PublishEvents } from '../pipeline/event-publisher';
import type { RedisClient } from '../adapters/redis/client';
import { createRedisPortOutStore } from '../adapters/redis/portout-store';
import { createRedisSubscriptionEnding } from '../adapters/redis/subscription-ending';
import type { PortOutDeps } from '../handlers/port-out/ports';
import { createPortOutDeadlineSweeper, type PortOutDeadlineSweeper } from '../schedulers/port-out-deadline';

/** Builds the port-out side's adapters from the configuration (composition only, no logic). */
export function createPortOutComponents(deps: { config: ServiceConfig; redis: RedisClient }): PortOutDeps {
  const { config } = deps;
  return {
    store: createRedisPortOutStore(deps.redis, { keyPrefix: config.redis.keyPrefix, outcomeTtlSeconds: config.limits.idempotencyTtlSeconds }),
    subscriptions: createRedisSubscriptionEnding(deps.redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: config.balance.ledgerRetention }),
    settings: config.portout,
  };
}

export function createPortOutDeadlines(deps: { portout: PortOutDeps; config: ServiceConfig; publish: PublishEvents; log: Logger; clock?: () => Date }): PortOutDeadlineSweeper {
  return createPortOutDeadlineSweeper(deps.portout, {
    intervalMs: deps.config.portout.deadlineSweepIntervalMs,
    batchSize: 100,
    clock: deps.clock ?? (() => new Date()),
    log: deps.log.child({ component: 'portout-deadline' }),
    publish: deps.publish,
  });
}
