import type { Redis, Cluster } from 'ioredis';
import { timedRedisCall } from './call-timing';
import { replyKey } from './keys';
import type { ReplyCache, StoredOutcome } from '../../pipeline/ports';
import { decodeOutcome, encodeOutcome } from './outcome-format';

/**
 * The worker's memory of answered changes whose handlers do not record their own outcome (the port-in
 * commands): the fingerprint of the command and every message it sent (reply and events), re-sent as they
 * were when the command is delivered again. A message carrying secrets (an NP request with pwdPin and
 * accountNo) is not kept: the outcome is marked `rerun` instead. One key per change, in the compact layout
 * of outcome-format.ts, under its partner's hash tag. The partner's idempotency quota is counted at
 * admission (admission.ts), not here.
 */
export class RedisReplyCache implements ReplyCache {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async lookup(partnerId: string, commandId: string): Promise<StoredOutcome | undefined> {
    const stored = await timedRedisCall(this.redis, 'replyCache.get', () => this.redis.getBuffer(replyKey(this.keyPrefix, partnerId, commandId)));
    return stored ? decodeOutcome(stored) : undefined;
  }

  async put(partnerId: string, commandId: string, outcome: StoredOutcome): Promise<void> {
    const stored = encodeOutcome(outcome);
    await timedRedisCall(this.redis, 'replyCache.put', () =>
      this.redis.set(replyKey(this.keyPrefix, partnerId, commandId), stored, 'EX', this.ttlSeconds, 'NX'),
    );
  }
}
