import type { NumberFacts } from '../../handlers/portin/ports';
import type { RedisClient } from './client';
import { subscriberKeys } from './keys';
import { portInKeys } from './portin-keys';
import { timedRedisCall } from './call-timing';
import { fromHash } from './portin-codec';

/**
 * What eligibility needs to know about a number: its subscription's status and its current port-in request.
 * Two plain reads, auto-pipelined into one write and one round trip, with no script: eligibility is advice
 * given at one moment, and no step writes the two together for a read to see half of.
 */
export class RedisNumberFacts implements NumberFacts {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async read(gpsi: string) {
    const [status, hash] = await timedRedisCall(this.redis, 'portinEligibility', () =>
      Promise.all([this.redis.hget(subscriberKeys(this.keyPrefix, gpsi).subscription, 'status'), this.redis.hgetall(portInKeys(this.keyPrefix, gpsi).current)]),
    );
    return {
      ...(status ? { subscriptionStatus: status } : {}),
      ...(Object.keys(hash).length > 0 ? { portIn: fromHash(hash) } : {}),
    };
  }
}
