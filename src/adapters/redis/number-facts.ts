import type { NumberFacts } from '../../handlers/portin/ports';
import type { RedisClient } from './client';
import { subscriberKeys } from './keys';

/** Reads what eligibility needs to know about a number from its subscription hash. */
export class RedisNumberFacts implements NumberFacts {
  constructor(private readonly redis: RedisClient, private readonly keyPrefix: string) {}

  async subscriptionStatus(gpsi: string): Promise<string | undefined> {
    return (await this.redis.hget(subscriberKeys(this.keyPrefix, gpsi).subscription, 'status')) ?? undefined;
  }
}
