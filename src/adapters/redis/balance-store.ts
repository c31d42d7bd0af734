import type { Cluster, Redis } from 'ioredis';
import type { BalanceStore, CommandMeta } from '../../handlers/balance/ports';
import { decodeFacts, decodeOutcome, decodeRead, decodeSubBalance } from './balance-outcome';
import { ledgerHistory } from './ledger-entry';
import { subscriberKeys } from './keys';
import { runScript } from './scripts';
import type { RedisScriptName } from './scripts.generated';

export interface BalanceStoreSettings {
  keyPrefix: string;
  /** How long a command's outcome is kept for redelivery (seconds). */
  outcomeTtlSeconds: number;
  /** Ledger entries (operations) kept per subscription. */
  ledgerRetention: number;
}

type ScriptReply = [outcome: string, replayed: number];

/** The balance commands over Redis: one Lua script per command, all keys in the subscription's hash tag. */
export function createRedisBalanceStore(redis: Redis | Cluster, settings: BalanceStoreSettings): BalanceStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);

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
    };
    const [json, replayed] = await runScript<ScriptReply>(
      redis,
      script,
      [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(meta.commandId)],
      [JSON.stringify(context), JSON.stringify(payload)],
    );
    return decodeOutcome(json, replayed === 1);
  }

  // Milli-unit quantities travel as strings: Lua keeps them exact and cjson would print large ones as 1e+15.
  const seedsJson = (seeds: { allocated: number; rolloverCap: number }[]) =>
    seeds.map((s) => ({ ...s, allocated: String(s.allocated), rolloverCap: String(s.rolloverCap) }));

  return {
    addBuckets: (meta, add) => mutate('bucketsAdd', meta, { bucketRefIds: add.bucketRefIds, seeds: seedsJson(add.seeds) }),
    swapPrimary: (meta, swap) => mutate('primarySwap', meta, { ...swap, seeds: seedsJson(swap.seeds) }),
    cancelBuckets: (meta, ids) => mutate('bucketsCancel', meta, ids),
    updateBalances: (meta, update, thresholds = {}) =>
      mutate('balancesUpdate', meta, {
        problems: update.problems,
        thresholds,
        actions: update.actions.map((a) => (a ? { ...a, action: a.action ?? null, quantity: a.quantity === undefined ? null : String(a.quantity) } : null)),
      }),

    async queryBalances(gpsi, visibleCustomerIds) {
      const keys = keysOf(gpsi);
      const json = await runScript<string>(redis, 'balancesQuery', [keys.subscription, keys.balances], [gpsi, JSON.stringify(visibleCustomerIds)]);
      const raw = decodeRead(json);
      const balances = Array.isArray(raw.balances) ? raw.balances.map(decodeSubBalance) : [];
      return { subscription: decodeFacts(raw.subscription as Record<string, unknown>), balances };
    },

    async history(gpsi, visibleCustomerIds, limit) {
      const keys = keysOf(gpsi);
      const [status, ...entries] = await runScript<string[]>(redis, 'ledgerRead', [keys.subscription, keys.ledger], [gpsi, JSON.stringify(visibleCustomerIds), limit]);
      decodeRead(status);
      return ledgerHistory(entries, gpsi, limit);
    },
  };
}
