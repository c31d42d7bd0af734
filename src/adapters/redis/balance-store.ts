import type { Cluster, Redis } from 'ioredis';
import type { BalanceStore, CommandMeta } from '../../handlers/balance/ports';
import { DEFAULT_BILL_CYCLE_TIME_ZONE } from '../../domain/balance/bill-cycle';
import { createBillingClock, type BillingClock } from '../../domain/balance/clock';
import type { BalanceOutcome } from '../../domain/balance/outcome';
import { nextExpiryOf } from '../../domain/balance/renewal';
import { datedSeeds, type SubBalanceSeed } from '../../domain/balance/seeds';
import { needsTimeZone, validityEnd, type Validity } from '../../domain/balance/validity';
import { decodeBalances, decodeFacts, decodeOutcome, decodeRead } from './balance-outcome';
import { ledgerHistory } from './ledger-entry';
import { renewalDueKey, subscriberKeys } from './keys';
import { runScript } from './scripts';
import { seedArgs } from './seed-args';
import type { RedisScriptName } from './scripts.generated';

export interface BalanceStoreSettings {
  keyPrefix: string;
  /** How long a command's outcome is kept for redelivery (seconds). */
  outcomeTtlSeconds: number;
  /** Ledger entries (operations) kept per subscription. */
  ledgerRetention: number;
  /** The billing clock validity periods start on (default: the wall clock). */
  clock?: BillingClock;
}

type ScriptReply = [outcome: string, replayed: number];

/** The balance commands over Redis: one Lua script per command, all keys in the subscription's hash tag. */
export function createRedisBalanceStore(redis: Redis | Cluster, settings: BalanceStoreSettings): BalanceStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const clock = settings.clock ?? createBillingClock(1, 0);
  const dueKey = renewalDueKey(settings.keyPrefix);

  async function mutate(script: RedisScriptName, meta: CommandMeta, payload: unknown) {
    const keys = keysOf(meta.gpsi);
    const context = {
      gpsi: meta.gpsi,
      visible: meta.visibleCustomerIds ?? [meta.wholesaleCustomerId],
      commandId: meta.commandId,
      correlationId: meta.correlationId,
      operation: meta.operation,
      at: meta.at,
      ttl: settings.outcomeTtlSeconds,
      retention: settings.ledgerRetention,
      fp: meta.fingerprint,
      refuseNew: meta.refuseNew,
    };
    const [json, replayed] = await runScript<ScriptReply>(
      redis,
      script,
      [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(meta.commandId)],
      [JSON.stringify(context), JSON.stringify(payload)],
    );
    return wakeForExpiry(meta.gpsi, decodeOutcome(json, replayed === 1));
  }

  /**
   * Validity periods start when the command is applied (billing time). Only `cycles` need the subscription's
   * zone, which is fixed for its life: it is read then, so a days-only command costs no extra round trip.
   */
  async function validityStart(meta: CommandMeta, validities: readonly (Validity | undefined)[]) {
    const zone = validities.some(needsTimeZone) ? await redis.hget(keysOf(meta.gpsi).subscription, 'billCycleTimeZone') : null;
    return { startMs: clock.toBilling(new Date(meta.at)).getTime(), zone: zone ?? DEFAULT_BILL_CYCLE_TIME_ZONE };
  }

  async function dated(meta: CommandMeta, seeds: readonly SubBalanceSeed[]) {
    const { startMs, zone } = await validityStart(meta, seeds.map((s) => s.validity));
    return seedArgs(datedSeeds(seeds, startMs, zone));
  }

  /** The end a top-up made now gives purchased credit, for the types of the command's Adds whose credit expires. */
  async function creditEnds(meta: CommandMeta, types: readonly string[], validity: Readonly<Record<string, Validity>>) {
    const expiring = [...new Set(types)].filter((type) => validity[type]);
    if (expiring.length === 0) return {};
    const { startMs, zone } = await validityStart(meta, expiring.map((type) => validity[type]));
    return Object.fromEntries(expiring.map((type) => [type, String(validityEnd(startMs, validity[type], zone))]));
  }

  /**
   * The scheduler finds a subscription at its next renewal; something that ends before it (a short dated
   * bucket, purchased credit) brings its due-set entry forward (LT: never later). A separate call, as the
   * due-set is a global key; a redelivered command does it again.
   */
  async function wakeForExpiry(gpsi: string, outcome: BalanceOutcome): Promise<BalanceOutcome> {
    const next = nextExpiryOf(outcome.balances);
    const renewal = outcome.subscription.nextRenewalAt;
    if (next !== undefined && (!renewal || next < Date.parse(renewal))) await redis.zadd(dueKey, 'LT', clock.toRealMs(new Date(next)), gpsi);
    return outcome;
  }

  return {
    addBuckets: async (meta, add) => mutate('bucketsAdd', meta, { bucketRefIds: add.bucketRefIds, seeds: await dated(meta, add.seeds) }),
    swapPrimary: async (meta, swap) => mutate('primarySwap', meta, { ...swap, seeds: await dated(meta, swap.seeds) }),
    cancelBuckets: (meta, ids) => mutate('bucketsCancel', meta, ids),
    updateBalances: async (meta, update, thresholds = {}, creditValidity = {}) => {
      const adds = update.actions.flatMap((a) => (a?.action === 'Add' ? [a.subBalanceType] : []));
      return mutate('balancesUpdate', meta, {
        problems: update.problems,
        thresholds,
        purchasedUntil: await creditEnds(meta, adds, creditValidity),
        actions: update.actions.map((a) => (a ? { ...a, action: a.action ?? null, quantity: a.quantity === undefined ? null : String(a.quantity) } : null)),
      });
    },

    async queryBalances(gpsi, visibleCustomerIds) {
      const keys = keysOf(gpsi);
      const json = await runScript<string>(redis, 'balancesQuery', [keys.subscription, keys.balances], [gpsi, JSON.stringify(visibleCustomerIds)]);
      const raw = decodeRead(json);
      return { subscription: decodeFacts(raw.subscription), balances: decodeBalances(raw, gpsi) };
    },

    async history(gpsi, visibleCustomerIds, limit) {
      const keys = keysOf(gpsi);
      const [status, ...entries] = await runScript<string[]>(redis, 'ledgerRead', [keys.subscription, keys.ledger], [gpsi, JSON.stringify(visibleCustomerIds), limit]);
      decodeRead(status);
      return ledgerHistory(entries, gpsi, limit);
    },
  };
}
