import type { Cluster, Redis } from 'ioredis';
import type { RenewalStore } from '../../handlers/balance/ports';
import { RENEWAL_OPERATION } from '../../schedulers/balance-renewal';
import { decodeOutcome } from './balance-outcome';
import { renewalDueKey, subscriberKeys } from './keys';
import { runScript } from './scripts';

/**
 * The renewal scheduler's state over Redis. The due-set is one global key, only ever touched alone (claim
 * script, ZADD, ZREM), so it works on a Redis Cluster; the renewal itself is one script on the
 * subscription's keys.
 */
export function createRedisRenewalStore(redis: Redis | Cluster, settings: { keyPrefix: string; ledgerRetention: number }): RenewalStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const dueKey = renewalDueKey(settings.keyPrefix);

  return {
    claimDue: (nowMs, leaseUntilMs, limit) => runScript<string[]>(redis, 'renewalsClaim', [dueKey], [nowMs, leaseUntilMs, limit]),

    async state(gpsi) {
      const [status, day, zone, nextRenewalAt] = await redis.hmget(keysOf(gpsi).subscription, 'status', 'billCycleStartDay', 'billCycleTimeZone', 'nextRenewalAt');
      if (!status) return undefined;
      return { status, billCycleStartDay: Number(day), ...(zone ? { billCycleTimeZone: zone } : {}), ...(nextRenewalAt ? { nextRenewalAt } : {}) };
    },

    async renew(gpsi, cycle) {
      const keys = keysOf(gpsi);
      const context = { gpsi, ...cycle, operation: RENEWAL_OPERATION, retention: settings.ledgerRetention };
      const [, result] = await runScript<[string, string]>(redis, 'balancesRenew', [keys.subscription, keys.balances, keys.ledger, keys.renewalOutbox], [
        JSON.stringify(context),
      ]);
      return result as 'renewed' | 'inactive' | 'not-due';
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
