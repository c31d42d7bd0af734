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
  /** Keeps the first outcome stored (SET NX): a command is looked up before it runs, so a later one is a race's loser. */
  put(commandId: string, outcome: StoredOutcome): Promise<void>;
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

  async put(commandId: string, outcome: StoredOutcome): Promise<void> {
    const stored = encodeOutcome(outcome);
    await timedRedisCall(this.redis, 'replyCache.put', () => this.redis.set(replyKey(this.keyPrefix, commandId), stored, 'EX', this.ttlSeconds, 'NX'));
  }
}
