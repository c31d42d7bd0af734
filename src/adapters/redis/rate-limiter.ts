import type { RateLimitSettings } from '../../config/auth';
import type { Admission, RateLimiter } from '../../security/access';
import { unlimited } from '../../security/access';
import type { RedisClient } from './client';
import { rateLimitKey } from './keys';
import { runScript } from './scripts';

/**
 * The per-partner token bucket in Redis (scripts/rateLimitTake-1.lua); RATE_LIMIT_PER_SECOND=0 turns it off.
 * The commands of a batch ask at the same moment: their requests for one partner are gathered until the
 * event loop turns and take their tokens in one script call, admitted in the order they asked, as many as
 * there are tokens — what one call each would decide, for one Redis round trip per partner and batch
 * instead of one per command.
 */
interface Waiting {
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

export function createRedisRateLimiter(redis: RedisClient, keyPrefix: string, settings: RateLimitSettings): RateLimiter {
  if (settings.perSecond === 0) return unlimited;
  let waiting = new Map<string, Waiting[]>();

  async function take(partnerId: string, callers: Waiting[]): Promise<void> {
    try {
      const [granted, retryAfterMs] = await runScript<[number, number]>(redis, 'rateLimitTake', [rateLimitKey(keyPrefix, partnerId)], [
        settings.perSecond,
        settings.burst,
        callers.length,
      ]);
      callers.forEach((caller, i) => caller.resolve(i < granted ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs }));
    } catch (error) {
      for (const caller of callers) caller.reject(error);
    }
  }

  function flush(): void {
    const gathered = waiting;
    waiting = new Map();
    for (const [partnerId, callers] of gathered) void take(partnerId, callers);
  }

  return {
    admit(partnerId) {
      return new Promise((resolve, reject) => {
        if (waiting.size === 0) setImmediate(flush);
        const callers = waiting.get(partnerId);
        if (callers) callers.push({ resolve, reject });
        else waiting.set(partnerId, [{ resolve, reject }]);
      });
    },
  };
}
