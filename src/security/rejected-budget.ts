import type { RejectedRateSettings } from '../config/auth';

/**
 * The budget of refused traffic (UNAUTHORIZED, FORBIDDEN), in process: a token bucket per partner the token
 * claims (unverified: only to account the refusal, never to grant anything) and one shared bucket for
 * records whose claim names no known partner — so a flood with invented claims cannot grow the buckets
 * either. A refusal within the budget is answered or recorded; past it, it is only counted. Verified
 * traffic never takes from it, so valid partners are never slowed by someone else's forged tokens.
 */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.lastMs = nowMs;
  }

  take(nowMs: number): boolean {
    if (!this.has(nowMs)) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whether one more could be taken now (refills, takes nothing). */
  has(nowMs: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.lastMs) / 1000) * this.perSecond);
    this.lastMs = nowMs;
    return this.tokens >= 1;
  }
}

export interface RejectedBudget {
  /** Takes one refusal from the bucket of the partner the Authorization header claims; false when it is empty. */
  take(authorization: string | undefined): boolean;
  /**
   * True while that bucket is empty: the claimed partner's tokens are being refused faster than its budget.
   * Then a token not verified before is shed without its signature check (docs/security.md).
   */
  spent(authorization: string | undefined): boolean;
}

/** `perSecond` 0: no budget, every refusal is answered or recorded. */
export function createRejectedBudget(settings: RejectedRateSettings, claimedPartner: (authorization: string | undefined) => string | undefined, clock: () => number = Date.now): RejectedBudget {
  if (settings.perSecond === 0) return { take: () => true, spent: () => false };
  const buckets = new Map<string, TokenBucket>();
  const UNCLAIMED = '\u0000'; // no partner id can be this: the one bucket of records without a known claim
  const bucketOf = (authorization: string | undefined, now: number): TokenBucket => {
    const key = claimedPartner(authorization) ?? UNCLAIMED;
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = new TokenBucket(settings.perSecond, settings.burst, now)));
    return bucket;
  };
  return {
    take(authorization) {
      const now = clock();
      return bucketOf(authorization, now).take(now);
    },
    spent(authorization) {
      const now = clock();
      return !bucketOf(authorization, now).has(now);
    },
  };
}
