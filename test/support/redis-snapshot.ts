import type { RedisClient } from '../../src/adapters/redis/client';

/**
 * Everything Redis holds under a key pattern (one test file's prefix, or one subscriber's hash tag), as a
 * sorted plain object: two snapshots are equal exactly when nothing was written in between.
 * Single Redis only (SCAN); tests that need a Cluster read the keys they know.
 */
export async function redisSnapshot(redis: RedisClient, pattern: string): Promise<Record<string, unknown>> {
  if (!('scanStream' in redis)) throw new Error('redisSnapshot needs a single Redis node');
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: pattern, count: 500 })) keys.push(...(batch as string[]));
  const entries = await Promise.all(
    [...new Set(keys)].sort().map(async (key) => {
      const type = await redis.type(key);
      const value =
        type === 'hash'
          ? await redis.hgetall(key)
          : type === 'list'
            ? await redis.lrange(key, 0, -1)
            : type === 'zset'
              ? await redis.zrange(key, 0, -1, 'WITHSCORES')
              : type === 'set'
                ? (await redis.smembers(key)).sort()
                : await redis.get(key);
      return [key, { type, value }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** A subscriber's business state (subscription, port-in, balances, ledger), without recorded command outcomes. */
export async function subscriberState(redis: RedisClient, keyPrefix: string, gpsi: string): Promise<Record<string, unknown>> {
  const all = await redisSnapshot(redis, `${keyPrefix}{${gpsi}}:*`);
  return Object.fromEntries(Object.entries(all).filter(([key]) => !key.includes(':done:')));
}
