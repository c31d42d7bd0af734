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

/**
 * How much a worker takes ahead for its reserve: a twentieth of the burst (tokens) and a thousandth of the
 * quota (counts), at most 100 each — nothing for small limits, which stay exact. At most that much of a
 * partner's rate or quota sits unused in one worker: the burst it may add, the over-count it may leave.
 */
export const leaseSizes = (rate: RateLimitSettings, quota: Pick<OutcomeQuota, 'quota'>) => ({
  tokens: rate.perSecond === 0 ? 0 : Math.min(100, Math.floor(rate.burst / 20)),
  counts: quota.quota === 0 ? 0 : Math.min(100, Math.floor(quota.quota / 1000)),
});

interface Waiting {
  isChange: boolean;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

/** Tokens and quota counts a worker took from a partner's admission state and has not used yet. */
interface Reserve {
  tokens: number;
  counts: number;
}

const ADMITTED: Admission = { allowed: true, retryAfterMs: 0 };

/**
 * The partner's rate (token bucket) and idempotency quota in Redis, one script (scripts/admissionTake-1.lua)
 * over one hash per partner. A command the worker's reserve covers is admitted with no call. The others
 * ask together: their requests for one partner are gathered until the event loop turns and decided in one
 * call, admitted in the order they asked — what one call each would decide — and the call tops the reserve
 * up (leaseSizes). Changes taken back (`uncount`) refill the reserve, or ride along with the next call.
 */
export function createRedisAdmission(redis: RedisClient, keyPrefix: string, rate: RateLimitSettings, quota: OutcomeQuota): PartnerAdmission {
  if (rate.perSecond === 0 && quota.quota === 0) return unlimited;
  const bucketSeconds = Math.max(1, Math.ceil(quota.windowSeconds / quota.buckets));
  const lease = leaseSizes(rate, quota);
  const limited = rate.perSecond > 0;
  const counted = quota.quota > 0;
  let waiting = new Map<string, Waiting[]>();
  const uncounted = new Map<string, number>();
  const reserves = new Map<string, Reserve>();
  const reserveOf = (partnerId: string): Reserve => {
    let reserve = reserves.get(partnerId);
    if (!reserve) reserves.set(partnerId, (reserve = { tokens: 0, counts: 0 }));
    return reserve;
  };

  /** Admits from the reserve when it covers the command (a token when limited, a count for a change). */
  function fromReserve(partnerId: string, isChange: boolean): boolean {
    const reserve = reserves.get(partnerId);
    const needsCount = isChange && counted;
    if (limited && !(reserve && reserve.tokens > 0)) return false;
    if (needsCount && !(reserve && reserve.counts > 0)) return false;
    if (limited) reserve!.tokens--;
    if (needsCount) reserve!.counts--;
    return true;
  }

  async function take(partnerId: string, callers: Waiting[]): Promise<void> {
    const uncount = uncounted.get(partnerId) ?? 0;
    uncounted.delete(partnerId);
    const kinds = callers.map((c) => (c.isChange ? 'c' : 'q')).join('');
    try {
      const [granted, retryAfterMs, recordable, held, tokensLeased, countsLeased] = await runScript<[number, number, number, number, number, number]>(
        redis,
        'admissionTake',
        [admissionKey(keyPrefix, partnerId)],
        [rate.perSecond, rate.burst, kinds, quota.quota, quota.windowSeconds, bucketSeconds, uncount, lease.tokens, lease.counts],
      );
      const reserve = reserveOf(partnerId);
      reserve.tokens += tokensLeased;
      reserve.counts += countsLeased;
      let changes = 0;
      callers.forEach((caller, i) => {
        if (i >= granted) return caller.resolve({ allowed: false, retryAfterMs });
        if (!caller.isChange || !counted || changes++ < recordable) return caller.resolve(ADMITTED);
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
      if (fromReserve(partnerId, isChange)) return Promise.resolve(ADMITTED);
      return new Promise((resolve, reject) => {
        if (waiting.size === 0) setImmediate(flush);
        const callers = waiting.get(partnerId);
        if (callers) callers.push({ isChange, resolve, reject });
        else waiting.set(partnerId, [{ isChange, resolve, reject }]);
      });
    },
    uncount(partnerId) {
      if (!counted) return;
      // A count taken back is a count this worker may use again; past a lease's worth it goes back to Redis.
      const reserve = reserveOf(partnerId);
      if (reserve.counts < lease.counts) reserve.counts++;
      else uncounted.set(partnerId, (uncounted.get(partnerId) ?? 0) + 1);
    },
  };
}
