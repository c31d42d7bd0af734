import type { NumberFacts } from '../../handlers/portin/ports';
import type { RedisClient } from './client';
import { subscriberKeys } from './keys';
import { portInKeys } from './portin-keys';
import { fromHash } from './portin-codec';
import { runScript } from './scripts';

/** What eligibility needs to know about a number: its subscription's status and its current port-in request, one script. */
export class RedisNumberFacts implements NumberFacts {
  constructor(private readonly redis: RedisClient, private readonly keyPrefix: string) {}

  async read(gpsi: string) {
    const keys = [subscriberKeys(this.keyPrefix, gpsi).subscription, portInKeys(this.keyPrefix, gpsi).current];
    const [status, flat] = await runScript<[string | null, string[]]>(this.redis, 'portinEligibility', keys, []);
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
    return {
      ...(status ? { subscriptionStatus: status } : {}),
      ...(flat.length > 0 ? { portIn: fromHash(hash) } : {}),
    };
  }
}
