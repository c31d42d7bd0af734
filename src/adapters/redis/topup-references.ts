import type { Cluster, Redis } from 'ioredis';
import type { TopupReferences } from '../../handlers/balance-operations/ports';

/** A top-up reference's holder: one string per customer and reference, kept as long as command outcomes. */
export const topupReferenceKey = (prefix: string, wholesaleCustomerId: string, reference: string): string => `${prefix}balance:topup-reference:{${wholesaleCustomerId}}:${reference}`;

export function createRedisTopupReferences(redis: Redis | Cluster, settings: { keyPrefix: string; outcomeTtlSeconds: number }): TopupReferences {
  return {
    async claim(wholesaleCustomerId, reference, gpsi) {
      // SET NX GET: the holder before, or null when this call recorded `gpsi`.
      const before = (await redis.call('SET', topupReferenceKey(settings.keyPrefix, wholesaleCustomerId, reference), gpsi, 'NX', 'GET', 'EX', settings.outcomeTtlSeconds)) as string | null;
      return before ?? gpsi;
    },
  };
}
