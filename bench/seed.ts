import { Redis } from 'ioredis';
import { createRedisSubscriptionStore } from '../src/adapters/redis/subscription-store';
import { createRedisBalanceStore } from '../src/adapters/redis/balance-store';
import { subscriberKeys } from '../src/adapters/redis/keys';
import { createBillingClock } from '../src/domain/balance/clock';
import type { Catalog } from '../src/domain/catalog/catalog';
import type { BenchSubscription, UpdateTarget } from './workload';

/**
 * Active subscriptions for the benchmark, made directly through the service's own subscription store
 * (the same Lua scripts a completed port-in runs: createPending, then activate), as
 * test/support/subscriptions.ts does — but many at once on an auto-pipelining connection, so 10,000 take
 * seconds, not minutes. Each has the WP-BASIC plan and two monthly add-ons (data 5 GB, messaging).
 */
export const SEEDED_ADD_ONS = ['2000002', '2000004'];
const CUSTOMERS = 20;

/** The customer nodes owning the subscriptions (all under one partner, see auth.ts). */
export const BENCH_CUSTOMERS = Array.from({ length: CUSTOMERS }, (_, i) => `BENCH${String(i).padStart(3, '0')}`);

/** The i-th benchmark subscription: the numbers and customers are derived, so nothing needs storing. */
export const benchSubscription = (i: number): BenchSubscription => ({
  gpsi: `1800${String(i).padStart(9, '0')}`,
  customer: BENCH_CUSTOMERS[i % CUSTOMERS],
});

export interface SeedSettings {
  redisUrl: string;
  keyPrefix: string;
  catalog: Catalog;
  idempotencyTtlSeconds: number;
  concurrency?: number;
}

const createId = (i: number) => `bench-create-${i}`;
const activateId = (i: number) => `bench-activate-${i}`;

export class Seeder {
  private readonly redis: Redis;
  private readonly store;

  constructor(private readonly settings: SeedSettings) {
    this.redis = new Redis(settings.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 3 });
    this.store = createRedisSubscriptionStore({
      redis: this.redis,
      catalog: settings.catalog,
      clock: createBillingClock(1, Date.now()),
      settings: { keyPrefix: settings.keyPrefix, outcomeTtlSeconds: settings.idempotencyTtlSeconds, ledgerRetention: 1000 },
    });
  }

  /** Creates and activates subscriptions [from, to); returns how long it took (ms). */
  async fill(from: number, to: number, onProgress?: (done: number) => void): Promise<number> {
    const began = performance.now();
    const at = new Date();
    let next = from;
    const lane = async () => {
      while (next < to) {
        const i = next++;
        const { gpsi, customer } = benchSubscription(i);
        const subscription = {
          gpsi,
          wholesaleCustomerId: customer,
          subscriberId: `SUB-${i}`,
          wholesalePlanId: 'WP-BASIC',
          bucketRefIds: SEEDED_ADD_ONS,
          products: [],
          billCycleFrequency: 'MONTHLY' as const,
          billCycleStartDay: 1 + (i % 28),
        };
        await this.store.createPending(subscription, createId(i), at);
        await this.store.activate(gpsi, at, activateId(i));
        if (onProgress && (i + 1) % 50_000 === 0) onProgress(i + 1);
      }
    };
    await Promise.all(Array.from({ length: this.settings.concurrency ?? 512 }, lane));
    return performance.now() - began;
  }

  /**
   * Removes the outcome records the seeding commands left (kept IDEMPOTENCY_TTL_SECONDS, 24 h, for
   * redeliveries), as their expiry would: what stays is the subscription's own state.
   */
  async forgetCommandRecords(from: number, to: number): Promise<void> {
    const { keyPrefix } = this.settings;
    for (let start = from; start < to; start += 5000) {
      const keys: string[] = [];
      for (let i = start; i < Math.min(to, start + 5000); i++) {
        const outcome = subscriberKeys(keyPrefix, benchSubscription(i).gpsi).commandOutcome;
        keys.push(outcome(createId(i)), outcome(activateId(i)));
      }
      await Promise.all(keys.map((key) => this.redis.unlink(key)));
    }
  }

  /** Which sub-balance the workload's UpdateBalances changes: the primary bucket's data allowance. */
  async updateTarget(): Promise<UpdateTarget> {
    const { gpsi, customer } = benchSubscription(0);
    const balances = createRedisBalanceStore(this.redis, { keyPrefix: this.settings.keyPrefix, outcomeTtlSeconds: 60, ledgerRetention: 1000 });
    const { balances: subBalances } = await balances.queryBalances(gpsi, [customer]);
    const primaryBucketRefId = await this.redis.hget(subscriberKeys(this.settings.keyPrefix, gpsi).subscription, 'primaryBucketRefId');
    const data = subBalances.find((b) => b.bucketRefId === primaryBucketRefId && b.unitType === 'MB');
    if (!data) throw new Error(`subscription ${gpsi} has no data allowance in its primary bucket`);
    return { suffix: data.subBalanceInstId.slice(gpsi.length + 1), subBalanceType: data.subBalanceType, unitType: data.unitType };
  }

  close(): Promise<void> {
    return this.redis.quit().then(() => undefined);
  }
}
