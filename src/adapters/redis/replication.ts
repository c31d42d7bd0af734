// Acknowledged means durable: WAIT for the replicas after a slice's scripts, before its replies go out.
import { Cluster } from 'ioredis';
import { RetriableError } from '../../contract/errors';
import type { RedisClient } from './client';

/**
 * A function that waits until `replicas` replicas of every primary acknowledged every write sent before it
 * on the client's connections (Redis WAIT; each primary of a Cluster), at most `timeoutMs`. Fewer
 * acknowledgements fail retriably: the slice's replies and offsets are not sent, its records come again
 * and replay their recorded outcomes, so nothing is acknowledged that a failover to a replica could lose.
 */
export function replicatedWrites(redis: RedisClient, replicas: number, timeoutMs: number): () => Promise<void> {
  const primaries = () => (redis instanceof Cluster ? redis.nodes('master') : [redis]);
  return async () => {
    const acknowledged = await Promise.all(primaries().map((node) => node.wait(replicas, timeoutMs)));
    const short = acknowledged.filter((n) => n < replicas).length;
    if (short > 0) throw new RetriableError(`Redis WAIT: ${short} of ${acknowledged.length} primaries had fewer than ${replicas} replica(s) acknowledge within ${timeoutMs} ms`);
  };
}
