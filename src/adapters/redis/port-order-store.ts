import type { Cluster, Redis } from 'ioredis';
import { decodePortOrder, encodePortOrder } from '../../domain/port-orders/order';
import type { PortOrderStore } from '../../handlers/port-orders/ports';
import { portOrderKey } from './port-order-keys';
import { runScript } from './scripts';

/** Port orders over Redis: one string per order (JSON, format `v`); created with SET NX, replaced by compare-and-set on its version. */
export function createRedisPortOrderStore(redis: Redis | Cluster, options: { keyPrefix: string }): PortOrderStore {
  const key = (owner: string, orderId: string) => portOrderKey(options.keyPrefix, owner, orderId);
  const read = async (owner: string, orderId: string) => {
    const text = await redis.get(key(owner, orderId));
    return text ? decodePortOrder(text) : undefined;
  };
  return {
    read,
    async create(order) {
      const written = await redis.set(key(order.owner, order.orderId), encodePortOrder(order), 'NX');
      if (written === 'OK') return order;
      const stored = await read(order.owner, order.orderId);
      if (!stored) throw new Error(`port order ${order.orderId} vanished while being created`);
      return stored;
    },
    async update(order, expectedVersion) {
      const written = await runScript<number>(redis, 'portOrderUpdate', [key(order.owner, order.orderId)], [String(expectedVersion), encodePortOrder(order)]);
      return written === 1;
    },
  };
}
