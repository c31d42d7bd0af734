import type { Cluster, Redis } from 'ioredis';
import { decodePortOut, encodePortOut } from '../../domain/port-out/port-out';
import type { PortOutOutcome, PortOutStore } from '../../handlers/port-out/ports';
import { subscriberKeys, SUBSCRIPTION_STATUS } from './keys';
import { portOutDeadlineKey, portOutKeys } from './portout-keys';
import { runScript } from './scripts';

/** A recorded outcome's stored format (`v`); a newer one stops the reader instead of being misread. */
const OUTCOME_FORMAT = 1;

const encodeOutcome = (outcome: PortOutOutcome): string => JSON.stringify({ v: OUTCOME_FORMAT, ...outcome });

function decodeOutcome(text: string): PortOutOutcome {
  const { v, ...outcome } = JSON.parse(text) as PortOutOutcome & { v?: number };
  if ((v ?? OUTCOME_FORMAT) > OUTCOME_FORMAT) throw new Error(`stored port-out outcome of format ${v}: newer than this worker reads (up to ${OUTCOME_FORMAT})`);
  return outcome;
}

const member = (gpsi: string, portOutId: string): string => `${gpsi}|${portOutId}`;

export interface RedisPortOutStoreOptions {
  keyPrefix: string;
  /** How long a cause's outcome is kept for replays (the worker's idempotency TTL). */
  outcomeTtlSeconds: number;
}

/** The port-out store over Redis: one Lua step to read and one to write (scripts/portout*.lua), on the number's slot. */
export function createRedisPortOutStore(redis: Redis | Cluster, options: RedisPortOutStoreOptions): PortOutStore {
  const { keyPrefix: prefix } = options;
  const deadlines = portOutDeadlineKey(prefix);
  return {
    async current(gpsi) {
      const text = await redis.get(portOutKeys(prefix, gpsi).current);
      return text ? decodePortOut(text) : undefined;
    },

    async read(gpsi, causeId) {
      const keys = portOutKeys(prefix, gpsi);
      const [recorded, current, [status, wholesaleCustomerId, subscriberId]] = await runScript<[string | null, string | null, (string | null)[]]>(
        redis,
        'portoutRead',
        [keys.current, keys.outcome(causeId), subscriberKeys(prefix, gpsi).subscription],
        [],
      );
      return {
        ...(recorded ? { recorded: decodeOutcome(recorded) } : {}),
        ...(current ? { current: decodePortOut(current) } : {}),
        ...(status === SUBSCRIPTION_STATUS.ACTIVE && wholesaleCustomerId !== null ? { owner: { wholesaleCustomerId, ...(subscriberId ? { subscriberId } : {}) } } : {}),
        ...(status === SUBSCRIPTION_STATUS.PENDING && wholesaleCustomerId !== null ? { portingIn: { wholesaleCustomerId, ...(subscriberId ? { subscriberId } : {}) } } : {}),
      };
    },

    async write(gpsi, causeId, expected, next, outcome) {
      const keys = portOutKeys(prefix, gpsi);
      const [kind, recorded] = await runScript<[string, string?]>(
        redis,
        'portoutWrite',
        [keys.current, keys.history, keys.outcome(causeId)],
        [expected?.portOutId ?? '', expected?.status ?? '', encodePortOut(next), next.portOutId, encodeOutcome(outcome), options.outcomeTtlSeconds],
      );
      if (kind === 'stale') return { kind: 'stale' };
      if (kind === 'replayed') return { kind: 'replayed', outcome: decodeOutcome(recorded as string) };
      return { kind: 'written' };
    },

    async scheduleDeadline(gpsi, portOutId, deadline) {
      await redis.zadd(deadlines, deadline.getTime(), member(gpsi, portOutId));
    },

    async dueDeadlines(now, limit) {
      const members = await redis.zrangebyscore(deadlines, '-inf', now.getTime(), 'LIMIT', 0, limit);
      return members.map((m) => {
        const at = m.indexOf('|');
        return { gpsi: m.slice(0, at), portOutId: m.slice(at + 1) };
      });
    },

    async completeDeadline(gpsi, portOutId) {
      await redis.zrem(deadlines, member(gpsi, portOutId));
    },
  };
}
