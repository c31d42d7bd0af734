import type { Redis, Cluster } from 'ioredis';
import { timedRedisCall } from './call-timing';
import { replyKey } from './keys';
import { decodeOutcome, encodeOutcome, type StoredOutcome } from './outcome-format';

/**
 * The worker's memory of answered commands: the fingerprint of the command and every message it sent
 * (reply and events), re-sent as they were when the command is delivered again. One key per command, so
 * a single SET NX / GET is atomic on its own. Stored in the compact layout of outcome-format.ts.
 */
export type { StoredOutcome };

export interface ReplyCache {
  get(commandId: string): Promise<StoredOutcome | undefined>;
  /**
   * Keeps the first outcome stored: when one is there already it is left as it is and returned (one
   * SET NX GET), so a query run before any lookup still answers a redelivery with the first reply.
   */
  put(commandId: string, outcome: StoredOutcome): Promise<StoredOutcome | undefined>;
}

export class RedisReplyCache implements ReplyCache {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async get(commandId: string): Promise<StoredOutcome | undefined> {
    const stored = await timedRedisCall(this.redis, 'replyCache.get', () => this.redis.getBuffer(replyKey(this.keyPrefix, commandId)));
    return stored === null ? undefined : decodeOutcome(stored);
  }

  async put(commandId: string, outcome: StoredOutcome): Promise<StoredOutcome | undefined> {
    const stored = encodeOutcome(outcome);
    const earlier = await timedRedisCall(this.redis, 'replyCache.put', () =>
      this.redis.setBuffer(replyKey(this.keyPrefix, commandId), stored, 'EX', this.ttlSeconds, 'NX', 'GET'),
    );
    return earlier === null ? undefined : decodeOutcome(earlier);
  }
}
