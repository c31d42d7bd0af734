import type { Cluster, Redis } from 'ioredis';

/**
 * Redis's TIME in epoch ms: the clock the schedulers' due-sets are stamped and claimed by. On a Cluster,
 * whichever node answers: servers kept in step by NTP, unlike workers' clocks, which a due time must not
 * depend on (a worker ahead would claim work early, one behind late).
 */
export async function serverTimeMs(redis: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
