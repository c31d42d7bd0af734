import type { Cluster, Redis } from 'ioredis';
import type { CommandMeta } from '../../handlers/balance/ports';
import type { ExpiredReservation, ReservationExpiryStore, ReservationFacts, ReservationOutcome, ReservationStore } from '../../handlers/balance-operations/ports';
import { decodeOutcome } from './balance-outcome';
import { reservationDueKey, subscriberKeys } from './keys';
import { checkRecordFormat, FORMAT_FIELD } from './record-format';
import { commandContext } from './command-context';
import { runScript } from './scripts';
import type { RedisScriptName } from './scripts.generated';
import { serverTimeMs } from './server-time';

export interface ReservationStoreSettings {
  keyPrefix: string;
  /** How long a command's outcome is kept for redelivery (seconds). */
  outcomeTtlSeconds: number;
  /** Ledger entries (operations) kept per subscription. */
  ledgerRetention: number;
}

type ScriptReply = [outcome: string, replayed: number, facts?: (string | null)[]];

/** The `res` a reservation script adds to its record (reservationFacts in scripts/lib/balance/6-reservations.lua). */
function decodeReservation(gpsi: string, raw: unknown): ReservationFacts {
  const r = raw as Record<string, string | undefined>;
  return {
    reservationId: String(r.id),
    subBalanceInstId: `${gpsi}-${r.n}`,
    amount: Number(r.a),
    expiresAt: new Date(Number(r.e)).toISOString(),
    ...(r.u === undefined ? {} : { used: Number(r.u) }),
    ...(r.x === undefined ? {} : { charged: Number(r.x) }),
  };
}

/** The reservation commands over Redis: one Lua script each, all keys in the subscription's hash tag. */
export function createRedisReservationStore(redis: Redis | Cluster, settings: ReservationStoreSettings): ReservationStore {
  const dueKey = reservationDueKey(settings.keyPrefix);

  async function run(script: RedisScriptName, meta: CommandMeta, payload: unknown): Promise<ReservationOutcome> {
    const keys = subscriberKeys(settings.keyPrefix, meta.gpsi);
    const context = commandContext(meta, settings);
    const [json, replayed, facts] = await runScript<ScriptReply>(
      redis,
      script,
      [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(meta.commandId), keys.reservations],
      [JSON.stringify(context), JSON.stringify(payload)],
    );
    const outcome = decodeOutcome(json, replayed === 1, meta, facts); // throws a recorded refusal
    const { res } = JSON.parse(json) as { res: unknown };
    return { ...outcome, reservation: decodeReservation(meta.gpsi, res) };
  }

  return {
    async reserve(meta, r) {
      const outcome = await run('reservationReserve', meta, { reservationId: r.reservationId, subBalanceInstId: r.subBalanceInstId, amount: String(r.amount), ttlMs: String(r.ttlMs) });
      // The due-set is a global key: a separate call (LT: never later); a redelivery does it again.
      await redis.zadd(dueKey, 'LT', Date.parse(outcome.reservation.expiresAt), meta.gpsi);
      return outcome;
    },
    commit: (meta, c, thresholds) => run('reservationCommit', meta, { reservationId: c.reservationId, used: String(c.used), thresholds }),
    release: (meta, reservationId) => run('reservationRelease', meta, { reservationId }),
  };
}

/** The reservation expiry scheduler's storage: the due-set, the expiry script and the outbox. */
export function createRedisReservationExpiryStore(redis: Redis | Cluster, settings: { keyPrefix: string }): ReservationExpiryStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const dueKey = reservationDueKey(settings.keyPrefix);
  return {
    // Redis's TIME, which the reserve script stamps expiresAt with
    now: () => serverTimeMs(redis),
    claimDue: (nowMs, leaseUntilMs, limit) => runScript<string[]>(redis, 'renewalsClaim', [dueKey], [nowMs, leaseUntilMs, limit]),
    async expire(gpsi, nowMs) {
      const keys = keysOf(gpsi);
      const [expired, nextAt] = await runScript<[number, string]>(
        redis,
        'reservationsExpire',
        [keys.subscription, keys.balances, keys.reservations, keys.reservationOutbox],
        [nowMs, new Date(nowMs).toISOString()],
      );
      return { expired: Number(expired), ...(nextAt === '' ? {} : { nextAtMs: Number(nextAt) }) };
    },
    async pending(gpsi) {
      const entries = await redis.lrange(keysOf(gpsi).reservationOutbox, 0, -1);
      return entries.map((token) => {
        const raw = JSON.parse(token) as { t: string; f: string[]; res: unknown; [FORMAT_FIELD]?: unknown };
        checkRecordFormat(raw[FORMAT_FIELD], 'reservation outbox entry');
        const [, subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId] = raw.f;
        const expiry: ExpiredReservation = {
          at: raw.t,
          subscription: {
            gpsi,
            subscriptionId: String(subscriptionId),
            subscriberId: String(subscriberId),
            wholesaleCustomerId: String(wholesaleCustomerId),
            wholesalePlanId: String(wholesalePlanId),
          },
          reservation: decodeReservation(gpsi, raw.res),
        };
        return { token, expiry };
      });
    },
    acknowledge: async (gpsi, token) => void (await redis.lrem(keysOf(gpsi).reservationOutbox, 1, token)),
    reschedule: async (gpsi, claimedUntilMs, nextAtMs) => void (await runScript(redis, 'reservationsReschedule', [dueKey], [gpsi, claimedUntilMs, nextAtMs === undefined ? '' : nextAtMs])),
  };
}
