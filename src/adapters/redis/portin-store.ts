import type { Cluster, Redis } from 'ioredis';
import type { PortInRequest } from '../../domain/portin/request';
import type { Expectation, PortInStore, RecordedOutcome, RequestRef, TransactionClaim, TransactionClaimRequest, WriteMode, WriteResult } from '../../handlers/portin/ports';
import { decodeRecordedOutcome, encodeRecordedOutcome, fromHash, pairsToHash, toHash } from './portin-codec';
import { subscriberKeys } from './keys';
import { expiryScheduleKey, portInKeys, portOrderKey, transactionKey } from './portin-keys';
import { runScript } from './scripts';

/**
 * The port-in store over Redis. Every mutation is one Lua script (scripts/portin*.lua) on one hash tag;
 * the function library holding them is loaded on first use (scripts.ts).
 */
export interface RedisPortInStoreOptions {
  keyPrefix: string;
  /** How long a cause's outcome is kept for replays (the worker's idempotency TTL). */
  outcomeTtlSeconds: number;
  /** How long an unfinished partner-transaction claim of another command is respected. */
  claimLeaseMs: number;
}

const parseRef = (json: string | null): RequestRef | undefined => {
  if (!json) return undefined;
  const ref = JSON.parse(json) as RequestRef;
  return typeof ref.gpsi === 'string' && typeof ref.requestId === 'string' ? ref : undefined;
};

export function createRedisPortInStore(redis: Redis | Cluster, options: RedisPortInStoreOptions): PortInStore {
  const { keyPrefix: prefix } = options;
  return {
    async current(gpsi) {
      const hash = await redis.hgetall(portInKeys(prefix, gpsi).current);
      return Object.keys(hash).length === 0 ? undefined : fromHash(hash);
    },

    async byRequest(ref) {
      const keys = portInKeys(prefix, ref.gpsi);
      const [kind, body] = await runScript<[string, string[] | string | undefined]>(redis, 'portinFind', [keys.current, keys.history], [ref.requestId]);
      if (kind === 'hash') return fromHash(pairsToHash(body as string[]));
      if (kind === 'json') return fromHash(JSON.parse(body as string) as Record<string, string>);
      return undefined;
    },

    async readForChange(gpsi, causeId) {
      const keys = portInKeys(prefix, gpsi);
      const [recorded, flat, status] = await runScript<[string | null, string[], string | null]>(
        redis,
        'portinRead',
        [keys.current, keys.outcome(causeId), subscriberKeys(prefix, gpsi).subscription],
        [],
      );
      return {
        ...(recorded ? { recorded: decodeRecordedOutcome(recorded) } : {}),
        ...(flat.length > 0 ? { current: fromHash(pairsToHash(flat)) } : {}),
        ...(status ? { subscriptionStatus: status } : {}),
      };
    },

    async write(gpsi: string, causeId: string, expected: Expectation, mode: WriteMode, next: PortInRequest, outcome: RecordedOutcome): Promise<WriteResult> {
      const keys = portInKeys(prefix, gpsi);
      const { fields, absent } = toHash(next);
      const [kind, recorded] = await runScript<[string, string?]>(
        redis,
        'portinWrite',
        [keys.current, keys.history, keys.outcome(causeId)],
        [
          expected.requestId ?? '',
          expected.portOrderVersion === undefined ? '' : String(expected.portOrderVersion),
          expected.portStatus ?? '',
          mode,
          JSON.stringify(fields),
          JSON.stringify(absent),
          encodeRecordedOutcome(outcome),
          options.outcomeTtlSeconds,
        ],
      );
      if (kind === 'stale') return { kind: 'stale' };
      return { kind: kind === 'replayed' ? 'replayed' : 'written', outcome: decodeRecordedOutcome(recorded as string) };
    },

    async claimTransaction(owner: string, partnerTransactionId: string, claim: TransactionClaimRequest): Promise<TransactionClaim> {
      const [kind, detail] = await runScript<[string, string?]>(
        redis,
        'portinClaimTransaction',
        [transactionKey(prefix, owner, partnerTransactionId)],
        [claim.commandId, claim.payloadHash, claim.gpsi, claim.requestId, claim.now.getTime(), options.claimLeaseMs],
      );
      if (kind === 'claimed') return { kind, requestId: detail as string };
      if (kind === 'duplicate') return { kind, reply: JSON.parse(detail as string) as Record<string, unknown> };
      return { kind: kind === 'mismatch' ? 'mismatch' : 'busy' };
    },

    async settleTransaction(owner, partnerTransactionId, commandId, reply) {
      await runScript(redis, 'portinSettleTransaction', [transactionKey(prefix, owner, partnerTransactionId)], [commandId, JSON.stringify(reply)]);
    },

    async releaseTransaction(owner, partnerTransactionId, commandId) {
      await runScript(redis, 'portinReleaseTransaction', [transactionKey(prefix, owner, partnerTransactionId)], [commandId]);
    },

    async findTransaction(owner, partnerTransactionId) {
      const [gpsi, requestId] = await redis.hmget(transactionKey(prefix, owner, partnerTransactionId), 'gpsi', 'requestId');
      return gpsi && requestId ? { gpsi, requestId } : undefined;
    },

    async indexPortOrder(portOrderId, ref) {
      const indexed = await runScript<number>(redis, 'portinIndexOrder', [portOrderKey(prefix, portOrderId)], [JSON.stringify({ gpsi: ref.gpsi, requestId: ref.requestId })]);
      return indexed === 1;
    },

    async findPortOrder(portOrderId) {
      return parseRef(await redis.get(portOrderKey(prefix, portOrderId)));
    },

    async scheduleExpiry(member, deadline) {
      await redis.zadd(expiryScheduleKey(prefix), deadline.getTime(), member);
    },

    async claimDueExpiries(now, leaseMs, limit) {
      return runScript<string[]>(redis, 'portinClaimExpiries', [expiryScheduleKey(prefix)], [now.getTime(), leaseMs, limit]);
    },

    async completeExpiry(member) {
      await redis.zrem(expiryScheduleKey(prefix), member);
    },
  };
}
