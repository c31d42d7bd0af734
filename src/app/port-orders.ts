import type { ServiceConfig } from './config';
import type { RedisClient } from '../adapters/redis/client';
import { createRedisPortOrderStore } from '../adapters/redis/port-order-store';
import type { PortOrderStore } from '../handlers/port-orders/ports';

/** How many of an order's numbers a worker handles at once: distinct numbers, so distinct Redis slots. */
const NUMBERS_AT_ONCE = 16;

/** Builds the port-order store from the configuration (composition only, no logic). */
export function createPortOrderComponents(deps: { config: ServiceConfig; redis: RedisClient }): { orders: PortOrderStore; concurrency: number } {
  return { orders: createRedisPortOrderStore(deps.redis, { keyPrefix: deps.config.redis.keyPrefix }), concurrency: NUMBERS_AT_ONCE };
}
