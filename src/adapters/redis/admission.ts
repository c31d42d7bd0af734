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
 * How many quota counts a worker takes ahead for its reserve: a thousandth of the quota, at most 100 —
 * nothing for small quotas, which stay exact. Only without a rate limit: the rate is counted by when each
 * command was sent, which a reserve taken now cannot know, so a limited partner's commands always ask.
 */
export const leaseSizes = (rate: RateLimitSettings, quota: Pick<OutcomeQuota, 'quota'>) => ({
  counts: rate.perSecond > 0 || quota.quota === 0 ? 0 : Math.min(100, Math.floor(quota.quota / 1000)),
});

interface Waiting {
  isChange: boolean;
  sentAtMs: number;
  /** Remembered once charged (a change with an id). */
  chargedKey?: string;
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

const ADMITTED: Admission = { allowed: true, retryAfterMs: 0 };
const REPEAT: Admission = { allowed: true, retryAfterMs: 0, repeat: true };

/** Command ids this worker charged, remembered for their repeats; past this many the oldest is forgotten. */
export const REMEMBERED_COMMANDS = 100_000;
/** How many repeats of one command pass free: a partner's retries, not a way around its rate. */
export const FREE_REPEATS = 3;

/**
 * The partner's rate (commands per second of sending, scripts/admissionTake-1.lua) and idempotency quota
 * in Redis, one script over one hash per partner. Requests for one partner are gathered until the event
 * loop turns and decided in one call, in the order they asked. Changes taken back (`uncount`) and replays
 * given back their rate (`refund`) ride along with the partner's next call. Without a rate limit, a change
 * the worker's reserve of quota counts covers is admitted with no call.
 */
export function createRedisAdmission(redis: RedisClient, keyPrefix: string, rate: RateLimitSettings, quota: OutcomeQuota): PartnerAdmission {
  if (rate.perSecond === 0 && quota.quota === 0) return unlimited;
  const bucketSeconds = Math.max(1, Math.ceil(quota.windowSeconds / quota.buckets));
  const lease = leaseSizes(rate, quota);
  const limited = rate.perSecond > 0;
  const counted = quota.quota > 0;
  let waiting = new Map<string, Waiting[]>();
  const uncounted = new Map<string, number>();
  const refunds = new Map<string, number[]>();
  /** Quota counts this worker took ahead and has not used yet, per partner. */
  const reserves = new Map<string, number>();
  /**
   * Changes this worker admitted and charged, by partner and command id, with the repeats let in since. A
   * command's records share its number's partition, so its redeliveries and a partner's re-sends with the
   * same X-Correlation-Id come to the worker that saw the first: they pass without a charge or a call (they
   * replay its outcome, or meet the same refusal). Insertion order makes the oldest the first forgotten.
   */
  const charged = new Map<string, number>();
  function remember(key: string): void {
    charged.set(key, 0);
    if (charged.size > REMEMBERED_COMMANDS) charged.delete(charged.keys().next().value!);
  }
  function repeatOf(key: string): boolean {
    const repeats = charged.get(key);
    if (repeats === undefined || repeats >= FREE_REPEATS) return false;
    charged.set(key, repeats + 1);
    return true;
  }

  function fromReserve(partnerId: string, isChange: boolean): boolean {
    if (limited) return false;
    if (!isChange) return true;
    const reserve = reserves.get(partnerId) ?? 0;
    if (reserve === 0) return false;
    reserves.set(partnerId, reserve - 1);
    return true;
  }

  async function take(partnerId: string, callers: Waiting[]): Promise<void> {
    const uncount = uncounted.get(partnerId) ?? 0;
    uncounted.delete(partnerId);
    const refunded = refunds.get(partnerId) ?? [];
    refunds.delete(partnerId);
    const kinds = callers.map((c) => (c.isChange ? 'c' : 'q')).join('');
    const sent = callers.map((c) => Math.floor(c.sentAtMs)).join(',');
    try {
      const [admitted, retryAfterMs, recordable, held, countsLeased] = await runScript<[string, number, number, number, number]>(
        redis,
        'admissionTake',
        [admissionKey(keyPrefix, partnerId)],
        [rate.perSecond, rate.burst, kinds, sent, quota.quota, quota.windowSeconds, bucketSeconds, uncount, refunded.join(','), lease.counts, rate.backlogSeconds],
      );
      if (countsLeased > 0) reserves.set(partnerId, (reserves.get(partnerId) ?? 0) + countsLeased);
      let changes = 0;
      callers.forEach((caller, i) => {
        if (admitted[i] !== '1') return caller.resolve({ allowed: false, retryAfterMs });
        if (caller.isChange && counted && changes++ >= recordable) {
          // past the quota: it may only replay, so its repeats are not let in free either
          return caller.resolve({ allowed: true, retryAfterMs: 0, quotaExhausted: { held, quota: quota.quota, windowSeconds: quota.windowSeconds } });
        }
        if (caller.chargedKey !== undefined && limited) remember(caller.chargedKey);
        caller.resolve(ADMITTED);
      });
    } catch (error) {
      if (uncount > 0) uncounted.set(partnerId, (uncounted.get(partnerId) ?? 0) + uncount);
      if (refunded.length > 0) refunds.set(partnerId, [...refunded, ...(refunds.get(partnerId) ?? [])]);
      for (const caller of callers) caller.reject(error);
    }
  }

  function flush(): void {
    const gathered = waiting;
    waiting = new Map();
    for (const [partnerId, callers] of gathered) void take(partnerId, callers);
  }

  return {
    admit(partnerId, isChange, sentAtMs, commandId) {
      const chargedKey = isChange && commandId !== undefined ? `${partnerId}\u0000${commandId}` : undefined;
      if (chargedKey !== undefined && limited && repeatOf(chargedKey)) return Promise.resolve(REPEAT);
      if (fromReserve(partnerId, isChange)) return Promise.resolve(ADMITTED);
      return new Promise((resolve, reject) => {
        if (waiting.size === 0) setImmediate(flush);
        const caller = { isChange, sentAtMs, chargedKey, resolve, reject };
        const callers = waiting.get(partnerId);
        if (callers) callers.push(caller);
        else waiting.set(partnerId, [caller]);
      });
    },
    uncount(partnerId) {
      if (!counted) return;
      // A count taken back is a count this worker may use again; past a lease's worth it goes back to Redis.
      const reserve = reserves.get(partnerId) ?? 0;
      if (reserve < lease.counts) reserves.set(partnerId, reserve + 1);
      else uncounted.set(partnerId, (uncounted.get(partnerId) ?? 0) + 1);
    },
    refund(partnerId, sentAtMs) {
      if (!limited) return;
      const pending = refunds.get(partnerId);
      if (pending) pending.push(Math.floor(sentAtMs));
      else refunds.set(partnerId, [Math.floor(sentAtMs)]);
    },
  };
}
