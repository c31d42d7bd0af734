import type { Cluster, Redis } from 'ioredis';
import { decodePortOrder, encodePortOrder } from '../../domain/port-orders/order';
import type { PortOrderStore } from '../../handlers/port-orders/ports';
import { portOrderKey, portOrderMembersKey, portOrderSettledKey } from './port-order-keys';
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
    async indexMembers(order) {
      const members = order.numbers.filter((n) => !n.refusal).flatMap((n) => [n.partnerTransactionId, order.orderId]);
      if (members.length > 0) await redis.hset(portOrderMembersKey(options.keyPrefix, order.owner), ...members);
    },
    async orderOf(owner, partnerTransactionId) {
      return (await redis.hget(portOrderMembersKey(options.keyPrefix, owner), partnerTransactionId)) ?? undefined;
    },
    async markSettled(order, partnerTransactionId) {
      const settled = portOrderSettledKey(options.keyPrefix, order.owner, order.orderId);
      await redis.sadd(settled, partnerTransactionId);
      return redis.scard(settled);
    },
  };
}
