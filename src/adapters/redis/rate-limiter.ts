import type { RateLimitSettings } from '../../config/security';
import type { RateLimiter } from '../../security/access';
import { unlimited } from '../../security/access';
import type { RedisClient } from './client';
import { rateLimitKey } from './keys';
import { runScript } from './scripts';

/** The per-partner token bucket in Redis (scripts/rateLimitTake-1.lua); RATE_LIMIT_PER_SECOND=0 turns it off. */
export function createRedisRateLimiter(redis: RedisClient, keyPrefix: string, settings: RateLimitSettings): RateLimiter {
  if (settings.perSecond === 0) return unlimited;
  return {
    async admit(partnerId) {
      const [allowed, retryAfterMs] = await runScript<[number, number]>(redis, 'rateLimitTake', [rateLimitKey(keyPrefix, partnerId)], [settings.perSecond, settings.burst]);
      return { allowed: allowed === 1, retryAfterMs };
    },
  };
}
