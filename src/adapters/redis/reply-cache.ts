import type { Redis, Cluster } from 'ioredis';
import { timedRedisCall } from './call-timing';
import { outcomeQuotaKey, replyKey } from './keys';
import type { OutcomeLookup, ReplyCache, StoredOutcome } from '../../pipeline/ports';
import { decodeOutcome, encodeOutcome } from './outcome-format';
import { runScript } from './scripts';

/**
 * The worker's memory of answered changes: the fingerprint of the command and every message it sent
 * (reply and events), re-sent as they were when the command is delivered again. A message carrying secrets
 * (an NP request with pwdPin and accountNo) is not kept: the outcome is marked `rerun` instead. One key per change, in the
 * compact layout of outcome-format.ts, under its partner's hash tag.
 *
 * Looking a change up also counts it against its partner's idempotency quota (scripts/outcomeLookup-2.lua,
 * the same single round trip): a partner may hold at most `quota` recorded changes per `ttlSeconds`, so one
 * partner cannot fill Redis for all (docs/security.md).
 */
export interface OutcomeQuota {
  /** Changes a partner may have recorded within the window; 0 = no quota. */
  quota: number;
  /** The window is the outcomes' lifetime (IDEMPOTENCY_TTL_SECONDS), counted in this many buckets. */
  buckets: number;
}

/** A day's window in hourly buckets; a short window (tests) in buckets of at least a second. */
export const QUOTA_BUCKETS = 24;

export class RedisReplyCache implements ReplyCache {
  private readonly bucketSeconds: number;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
    private readonly quota: OutcomeQuota = { quota: 0, buckets: QUOTA_BUCKETS },
  ) {
    this.bucketSeconds = Math.max(1, Math.ceil(ttlSeconds / quota.buckets));
  }

  async lookup(partnerId: string, commandId: string): Promise<OutcomeLookup> {
    const keys = [replyKey(this.keyPrefix, partnerId, commandId), outcomeQuotaKey(this.keyPrefix, partnerId)];
    const [state, payload] = await runScript<[number, Buffer | number]>(this.redis, 'outcomeLookup', keys, [this.quota.quota, this.ttlSeconds, this.bucketSeconds], {
      buffers: true,
    });
    if (state === 1) return { kind: 'recorded', outcome: decodeOutcome(payload as Buffer) };
    if (state === 2) return { kind: 'quota-exhausted', held: Number(payload), quota: this.quota.quota, windowSeconds: this.ttlSeconds };
    return { kind: 'new' };
  }

  async put(partnerId: string, commandId: string, outcome: StoredOutcome): Promise<void> {
    const stored = encodeOutcome(outcome);
    await timedRedisCall(this.redis, 'replyCache.put', () =>
      this.redis.set(replyKey(this.keyPrefix, partnerId, commandId), stored, 'EX', this.ttlSeconds, 'NX'),
    );
  }
}
