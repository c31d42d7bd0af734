import type { Redis, Cluster } from 'ioredis';
import type { Outbound } from '../../worker/outbound';
import { timedRedisCall } from './call-timing';
import { replyKey } from './keys';

/**
 * The worker's memory of answered commands: the fingerprint of the command and every message it sent
 * (reply and events), re-sent as they were when the command is delivered again. One key per command, so
 * a single SET NX / GET is atomic on its own.
 */
export interface StoredOutcome {
  fingerprint: string;
  messages: Outbound[];
}

export interface ReplyCache {
  get(commandId: string): Promise<StoredOutcome | undefined>;
  /** Keeps the first outcome stored: a concurrent duplicate does not overwrite it. */
  put(commandId: string, outcome: StoredOutcome): Promise<void>;
}

interface SerializedOutbound {
  t: string;
  p?: number;
  k: string | null;
  v: string | null;
  h: Record<string, string>;
}

const BINARY = 'b64:';
const encodeBytes = (value: Buffer | string): string => (Buffer.isBuffer(value) ? BINARY + value.toString('base64') : `s:${value}`);
const decodeBytes = (value: string): Buffer | string => (value.startsWith(BINARY) ? Buffer.from(value.slice(BINARY.length), 'base64') : value.slice(2));

const serialize = (m: Outbound): SerializedOutbound => ({
  t: m.topic,
  p: m.partition,
  k: m.key === null ? null : encodeBytes(m.key),
  v: m.value === null ? null : m.value.toString('base64'),
  h: Object.fromEntries(Object.entries(m.headers).map(([name, value]) => [name, encodeBytes(value)])),
});

const deserialize = (s: SerializedOutbound): Outbound => ({
  topic: s.t,
  partition: s.p,
  key: s.k === null ? null : decodeBytes(s.k),
  value: s.v === null ? null : Buffer.from(s.v, 'base64'),
  headers: Object.fromEntries(Object.entries(s.h).map(([name, value]) => [name, decodeBytes(value)])),
});

export class RedisReplyCache implements ReplyCache {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
  ) {}

  async get(commandId: string): Promise<StoredOutcome | undefined> {
    const raw = await timedRedisCall(this.redis, 'replyCache.get', () => this.redis.get(replyKey(this.keyPrefix, commandId)));
    if (raw === null) return undefined;
    const parsed = JSON.parse(raw) as { f: string; m: SerializedOutbound[] };
    return { fingerprint: parsed.f, messages: parsed.m.map(deserialize) };
  }

  async put(commandId: string, outcome: StoredOutcome): Promise<void> {
    const raw = JSON.stringify({ f: outcome.fingerprint, m: outcome.messages.map(serialize) });
    await timedRedisCall(this.redis, 'replyCache.put', () => this.redis.set(replyKey(this.keyPrefix, commandId), raw, 'EX', this.ttlSeconds, 'NX'));
  }
}
