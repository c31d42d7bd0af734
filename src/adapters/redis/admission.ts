import type { RateLimitSettings } from '../../config/auth';
import type { Admission, PartnerAdmission } from '../../security/access';
import { unlimited } from '../../security/access';
import type { RedisClient } from './client';
import { admissionKey } from './keys';
import { runScript } from './scripts';

/** PARTNER_OUTCOME_QUOTA over IDEMPOTENCY_TTL_SECONDS, counted in `buckets` time buckets; quota 0 = none. */
export interface OutcomeQuota {
  quota: number;
  windowSeconds: number;
  buckets: number;
}

/** A day's window in hourly buckets; a short window (tests) in buckets of at least a second. */
export const QUOTA_BUCKETS = 24;

interface Waiting {
  isChange: boolean;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

/**
 * The partner's rate (token bucket) and idempotency quota in Redis, one script (scripts/admissionTake-1.lua)
 * over one hash per partner. The commands of a batch ask at the same moment: their requests for one partner
 * are gathered until the event loop turns and decided in one call, admitted in the order they asked — what
 * one call each would decide, for one round trip per partner and batch instead of one per command. Changes
 * to take back from the count (`uncount`) ride along with the partner's next call.
 */
export function createRedisAdmission(redis: RedisClient, keyPrefix: string, rate: RateLimitSettings, quota: OutcomeQuota): PartnerAdmission {
  if (rate.perSecond === 0 && quota.quota === 0) return unlimited;
  const bucketSeconds = Math.max(1, Math.ceil(quota.windowSeconds / quota.buckets));
  let waiting = new Map<string, Waiting[]>();
  const uncounted = new Map<string, number>();

  async function take(partnerId: string, callers: Waiting[]): Promise<void> {
    const uncount = uncounted.get(partnerId) ?? 0;
    uncounted.delete(partnerId);
    const kinds = callers.map((c) => (c.isChange ? 'c' : 'q')).join('');
    // Nothing to limit or count: no call (queries while only the quota is on).
    if (rate.perSecond === 0 && uncount === 0 && !kinds.includes('c')) {
      for (const caller of callers) caller.resolve({ allowed: true, retryAfterMs: 0 });
      return;
    }
    try {
      const [granted, retryAfterMs, recordable, held] = await runScript<[number, number, number, number]>(redis, 'admissionTake', [admissionKey(keyPrefix, partnerId)], [
        rate.perSecond,
        rate.burst,
        kinds,
        quota.quota,
        quota.windowSeconds,
        bucketSeconds,
        uncount,
      ]);
      let changes = 0;
      callers.forEach((caller, i) => {
        if (i >= granted) return caller.resolve({ allowed: false, retryAfterMs });
        if (!caller.isChange || changes++ < recordable) return caller.resolve({ allowed: true, retryAfterMs: 0 });
        caller.resolve({ allowed: true, retryAfterMs: 0, quotaExhausted: { held, quota: quota.quota, windowSeconds: quota.windowSeconds } });
      });
    } catch (error) {
      if (uncount > 0) uncounted.set(partnerId, (uncounted.get(partnerId) ?? 0) + uncount);
      for (const caller of callers) caller.reject(error);
    }
  }

  function flush(): void {
    const gathered = waiting;
    waiting = new Map();
    for (const [partnerId, callers] of gathered) void take(partnerId, callers);
  }

  return {
    admit(partnerId, isChange) {
      return new Promise((resolve, reject) => {
        if (waiting.size === 0) setImmediate(flush);
        const callers = waiting.get(partnerId);
        if (callers) callers.push({ isChange, resolve, reject });
        else waiting.set(partnerId, [{ isChange, resolve, reject }]);
      });
    },
    uncount(partnerId) {
      if (quota.quota > 0) uncounted.set(partnerId, (uncounted.get(partnerId) ?? 0) + 1);
    },
  };
}
