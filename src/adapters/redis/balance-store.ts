import type { Cluster, Redis } from 'ioredis';
import { RetriableError } from '../../contract/errors';
import type { BalanceStore, CommandMeta } from '../../handlers/balance/ports';
import { refusalOf } from '../../domain/balance/subscription-access';
import { DEFAULT_BILL_CYCLE_TIME_ZONE } from '../../domain/balance/bill-cycle';
import { createBillingClock, type BillingClock } from '../../domain/balance/clock';
import type { BalanceOutcome } from '../../domain/balance/outcome';
import { nextExpiryOf } from '../../domain/balance/renewal';
import { datedSeeds, type SubBalanceSeed } from '../../domain/balance/seeds';
import { needsTimeZone, validityEnd, type Validity } from '../../domain/balance/validity';
import { decodeBalanceHash, decodeOutcome, decodeRead } from './balance-outcome';
import { ledgerHistory } from './ledger-entry';
import { ServiceError } from '../../contract/errors';
import { BALANCES_OWNER_FIELD, renewalDueKey, SUBSCRIPTION_STATUS, subscriberKeys } from './keys';
import { timedRedisCall } from './call-timing';
import { commandContext } from './command-context';
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

/**
 * [outcome JSON, 1 = replayed | 0, the subscription's facts now (none beside a refusal)] or [the
 * subscription's time zone, 2] when the payload's dates were computed in another.
 */
type ScriptReply = [outcome: string, replayed: number, facts?: (string | null)[]];

/**
 * The time zone a subscription's dates are computed in before its script runs (the script checks it): the
 * zone last seen for that number, else the last seen for any (a partner's subscriptions mostly share one),
 * else the default. Bounded: the oldest numbers are forgotten first.
 */
class ZoneGuess {
  private static readonly REMEMBERED = 10_000;
  private readonly byNumber = new Map<string, string>();
  private last = DEFAULT_BILL_CYCLE_TIME_ZONE;

  expected(gpsi: string): string {
    return this.byNumber.get(gpsi) ?? this.last;
  }

  learn(gpsi: string, zone: string): void {
    this.last = zone;
    if (this.byNumber.get(gpsi) === zone) return;
    this.byNumber.delete(gpsi);
    this.byNumber.set(gpsi, zone);
    if (this.byNumber.size > ZoneGuess.REMEMBERED) this.byNumber.delete(this.byNumber.keys().next().value!);
  }
}

/** The balance commands over Redis: one Lua script per command, all keys in the subscription's hash tag. */
export function createRedisBalanceStore(redis: Redis | Cluster, settings: BalanceStoreSettings): BalanceStore {
  const keysOf = (gpsi: string) => subscriberKeys(settings.keyPrefix, gpsi);
  const clock = settings.clock ?? createBillingClock(1, 0);
  const dueKey = renewalDueKey(settings.keyPrefix);

  const zones = new ZoneGuess();

  /** One script call; `zone`: the time zone the payload's dates were computed in, checked by the script. */
  async function run(script: RedisScriptName, meta: CommandMeta, payload: unknown, zone?: string): Promise<BalanceOutcome | { wrongZone: string }> {
    const keys = keysOf(meta.gpsi);
    const context = commandContext(meta, settings, zone);
    const [json, replayed, facts] = await runScript<ScriptReply>(
      redis,
      script,
      [keys.subscription, keys.balances, keys.ledger, keys.commandOutcome(meta.commandId)],
      [JSON.stringify(context), JSON.stringify(payload)],
    );
    if (replayed === 2) return { wrongZone: json };
    const outcome = decodeOutcome(json, replayed === 1, meta, facts);
    zones.learn(meta.gpsi, outcome.subscription.billCycleTimeZone);
    return outcome;
  }

  /**
   * A command whose payload may hold dates in the subscription's time zone (`build` gets the zone and says
   * whether it used it): computed in the zone expected (ZoneGuess), and again in the right one when the
   * script answers that the subscription's is another — one round trip as a rule, two after a wrong guess.
   */
  async function mutate(script: RedisScriptName, meta: CommandMeta, build: (zone: string) => { payload: unknown; usedZone: boolean }) {
    let zone = zones.expected(meta.gpsi);
    for (let attempt = 0; attempt < 2; attempt++) {
      const { payload, usedZone } = build(zone);
      const result = await run(script, meta, payload, usedZone ? zone : undefined);
      if (!('wrongZone' in result)) return wakeForExpiry(meta.gpsi, result);
      zones.learn(meta.gpsi, result.wrongZone);
      zone = result.wrongZone;
    }
    throw new RetriableError(`the time zone of ${meta.gpsi} changed while ${meta.operation} was applied`);
  }

  /** Validity periods start when the command is applied (billing time). */
  const billingStartMs = (meta: CommandMeta) => clock.toBilling(new Date(meta.at)).getTime();

  function dated(meta: CommandMeta, seeds: readonly SubBalanceSeed[], zone: string) {
    const startMs = billingStartMs(meta);
    return { seeds: seedArgs(datedSeeds(seeds, startMs, zone)), usedZone: seeds.some((s) => needsTimeZone(s.validity)) };
  }

  /** The end a top-up made now gives purchased credit, for the types of the command's Adds whose credit expires. */
  function creditEnds(meta: CommandMeta, types: readonly string[], validity: Readonly<Record<string, Validity>>, zone: string) {
    const expiring = [...new Set(types)].filter((type) => validity[type]);
    const startMs = billingStartMs(meta);
    return {
      ends: Object.fromEntries(expiring.map((type) => [type, String(validityEnd(startMs, validity[type], zone))])),
      usedZone: expiring.some((type) => needsTimeZone(validity[type])),
    };
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
    addBuckets: (meta, add) =>
      mutate('bucketsAdd', meta, (zone) => {
        const { seeds, usedZone } = dated(meta, add.seeds, zone);
        return { payload: { bucketRefIds: add.bucketRefIds, seeds }, usedZone };
      }),
    swapPrimary: (meta, swap) =>
      mutate('primarySwap', meta, (zone) => {
        const { seeds, usedZone } = dated(meta, swap.seeds, zone);
        return { payload: { ...swap, seeds }, usedZone };
      }),
    cancelBuckets: (meta, ids) => mutate('bucketsCancel', meta, () => ({ payload: ids, usedZone: false })),
    updateBalances: (meta, update, thresholds = {}, creditValidity = {}) => {
      const adds = update.actions.flatMap((a) => (a?.action === 'Add' ? [a.subBalanceType] : []));
      return mutate('balancesUpdate', meta, (zone) => {
        const { ends, usedZone } = creditEnds(meta, adds, creditValidity, zone);
        const payload = {
          problems: update.problems,
          thresholds,
          purchasedUntil: ends,
          actions: update.actions.map((a) => (a ? { ...a, action: a.action ?? null, quantity: a.quantity === undefined ? null : String(a.quantity) } : null)),
        };
        return { payload, usedZone };
      });
    },

    /**
     * No script. An ACTIVE subscription's balances hash carries its owner (BALANCES_OWNER_FIELD), so one
     * HGETALL answers it: status, owner and balances read together, atomic on a Cluster too. Without the
     * field (not ACTIVE, or activated before the field existed and not changed since), the subscription's
     * status and owner are read with the balances, pipelined (one write, one round trip). Read in that
     * order, an ACTIVE subscription's balances are its own: activation writes them with the status in one
     * step, and only a new subscription of the number (after a cancellation) empties the hash — an ACTIVE
     * subscription read with no balances is read again, once, for that interleaving.
     */
    async queryBalances(gpsi, visibleCustomerIds) {
      const keys = keysOf(gpsi);
      // timed as 'balancesQuery', the series the Redis call metrics keep for this read
      const marked = await timedRedisCall(redis, 'balancesQuery', () => redis.hgetall(keys.balances));
      const owner = marked[BALANCES_OWNER_FIELD];
      if (owner !== undefined) {
        const refused = refusalOf({ status: SUBSCRIPTION_STATUS.ACTIVE, wholesaleCustomerId: owner }, gpsi, visibleCustomerIds);
        if (refused) throw refused;
        return { balances: decodeBalanceHash(gpsi, marked) };
      }
      for (let attempt = 1; ; attempt++) {
        const [[status, wholesaleCustomerId], hash] = await timedRedisCall(redis, 'balancesQuery', () =>
          Promise.all([redis.hmget(keys.subscription, 'status', 'wholesaleCustomerId'), redis.hgetall(keys.balances)]),
        );
        const refused = refusalOf({ status, wholesaleCustomerId }, gpsi, visibleCustomerIds);
        if (refused) throw refused;
        const balances = decodeBalanceHash(gpsi, hash);
        if (balances.length > 0 || attempt === 2) return { balances };
      }
    },

    async history(gpsi, visibleCustomerIds, limit, subscriptionId) {
      const keys = keysOf(gpsi);
      // missing and another customer's answer alike, as for the number's live subscription
      const notFound = () => new ServiceError('NOT_FOUND', `No subscription ${subscriptionId} of gpsi ${gpsi} belongs to this wholesale customer`);
      if (subscriptionId !== undefined) {
        // an ended subscription, kept when the number ported back in (subscriptionCreate): written once, never changed
        const ended = await redis.hget(keys.endedSubscriptions, subscriptionId);
        if (ended) {
          const { wholesaleCustomerId, endedLedgerOf } = JSON.parse(ended) as { wholesaleCustomerId?: string; endedLedgerOf?: string };
          if (!wholesaleCustomerId || !visibleCustomerIds.includes(wholesaleCustomerId)) throw notFound();
          const entries = endedLedgerOf === undefined ? [] : await redis.lrange(keys.endedLedger(endedLedgerOf), 0, limit - 1);
          return ledgerHistory(entries, gpsi, limit);
        }
      }
      const [status, ...entries] = await runScript<string[]>(redis, 'ledgerRead', [keys.subscription, keys.ledger], [gpsi, JSON.stringify(visibleCustomerIds), limit]);
      const read = decodeRead(status) as { subscription?: (string | null)[] };
      if (subscriptionId !== undefined && read.subscription?.[1] !== subscriptionId) throw notFound();
      return ledgerHistory(entries, gpsi, limit);
    },
  };
}
