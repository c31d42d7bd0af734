import type { Cluster, Redis } from 'ioredis';
import type { RenewalStore } from '../../handlers/balance/ports';
import { EXPIRY_OPERATION, RENEWAL_OPERATION } from '../../schedulers/balance-renewal';
import { decodeOutcome } from './balance-outcome';
import { renewalDueKey, subscriberKeys } from './keys';
import { runScript } from './scripts';

/**
 * The renewal scheduler's state over Redis. The due-set is one global key, only ever touched alone (claim
 * script, ZADD, ZREM), so it works on a Redis Cluster; the renewal and the expiry are each one script on
 * the subscription's keys, writing to the same outbox.
 */
export interface RenewalStoreSettings {
  keyPrefix: string;
  ledgerRetention: number;
  /** subBalanceTypes whose purchased credit carries over at renewal (catalog purchasedCredit; default none). */
  carryOver?: readonly string[];
}

export function createRedisRenewalStore(redis: Redis | Cluster, settings: RenewalStoreSettings): RenewalStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const dueKey = renewalDueKey(settings.keyPrefix);

  return {
    claimDue: (nowMs, leaseUntilMs, limit) => runScript<string[]>(redis, 'renewalsClaim', [dueKey], [nowMs, leaseUntilMs, limit]),

    async state(gpsi) {
      const keys = keysOf(gpsi);
      const json = await runScript<string>(redis, 'balancesSchedule', [keys.subscription, keys.balances], [gpsi]);
      if (json === '') return undefined;
      const raw = JSON.parse(json) as { status: string; billCycleStartDay: string; billCycleTimeZone?: string; nextRenewalAt?: string; nextExpiry?: string };
      return {
        status: raw.status,
        billCycleStartDay: Number(raw.billCycleStartDay),
        ...(raw.billCycleTimeZone ? { billCycleTimeZone: raw.billCycleTimeZone } : {}),
        ...(raw.nextRenewalAt ? { nextRenewalAt: raw.nextRenewalAt } : {}),
        ...(raw.nextExpiry ? { nextExpiryAt: new Date(Number(raw.nextExpiry)).toISOString() } : {}),
      };
    },

    async renew(gpsi, cycle) {
      const keys = keysOf(gpsi);
      const context = { gpsi, ...cycle, operation: RENEWAL_OPERATION, retention: settings.ledgerRetention, carryOver: settings.carryOver ?? [] };
      const [, result] = await runScript<[string, string]>(redis, 'balancesRenew', [keys.subscription, keys.balances, keys.ledger, keys.renewalOutbox], [JSON.stringify(context)]);
      return result as 'renewed' | 'inactive' | 'not-due';
    },

    async expire(gpsi, expiry) {
      const keys = keysOf(gpsi);
      const context = { gpsi, ...expiry, cutoff: String(Date.parse(expiry.expiredAt)), operation: EXPIRY_OPERATION, retention: settings.ledgerRetention };
      const [, result] = await runScript<[string, string]>(redis, 'balancesExpire', [keys.subscription, keys.balances, keys.ledger, keys.renewalOutbox], [JSON.stringify(context)]);
      return result as 'expired' | 'inactive' | 'nothing';
    },

    async pending(gpsi) {
      const entries = await redis.lrange(keysOf(gpsi).renewalOutbox, 0, -1);
      return entries.map((token) => ({ token, outcome: decodeOutcome(token, false) }));
    },

    // LREM of the exact entry: safe when two instances flush the same outbox at once.
    acknowledge: async (gpsi, token) => void (await redis.lrem(keysOf(gpsi).renewalOutbox, 1, token)),
    schedule: async (gpsi, realMs) => void (await redis.zadd(dueKey, realMs, gpsi)),
    unschedule: async (gpsi) => void (await redis.zrem(dueKey, gpsi)),
  };
}
