import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { createRedisRenewalStore } from '../../src/adapters/redis/renewal-store';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import { createBillingClock } from '../../src/domain/balance/clock';
import type { SubBalanceChange } from '../../src/domain/balance/model';
import { seedsOf } from '../../src/domain/balance/seeds';
import { buildCatalog, carryOverTypesOf, creditValidityOf, type Catalog } from '../../src/domain/catalog/catalog';
import type { ServiceConfig } from '../../src/app/config';
import type { CommandMeta } from '../../src/handlers/balance/ports';
import { createRenewalScheduler } from '../../src/schedulers/balance-renewal';
import { activation, actionsOf, historyStep, runPure, stepDuration, type Activation, type HistoryStep } from '../support/balance-history';
import { testConfig } from '../support/harness';
import { allocationOf, checkLedger, propertyCatalogDocument } from '../support/ledger-sum';
import { redisTopologies } from '../support/redis-topologies';
import { createActiveSubscription } from '../support/subscriptions';

/**
 * Over any random history — activation in a partial first cycle (proration), updates, add-ons bought and
 * cancelled, renewals (rollover, purchased credit kept or lapsing) and validity ends, taken by the real
 * scheduler — the Lua scripts on a real Redis leave a ledger whose sum is every balance, and exactly the
 * ledger and balances the pure rules give for the same history. A single Redis and a three-master Cluster.
 */
describe.each(redisTopologies())('ledger = balance over random histories on the Lua scripts (Redis $name)', (topology) => {
  let config: ServiceConfig;
  let redis: RedisClient;
  let catalog: Catalog;
  let balance: BalanceComponents;

  beforeAll(async () => {
    config = testConfig(await topology.env());
    redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    catalog = buildCatalog(propertyCatalogDocument(JSON.parse(readFileSync(config.catalogFile, 'utf8'))));
    balance = createBalanceComponents({ config, catalog, redis });
  });

  afterAll(async () => {
    await redis?.quit();
    await topology.stop();
  });

  /** Runs the history through the stores and a scheduler that takes only this subscription; returns its ledger, oldest first. */
  async function runOnRedis(start: Activation, history: readonly HistoryStep[]) {
    let now = start.at;
    const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: start.plan, bucketRefIds: start.addOns, billCycleStartDay: start.billCycleStartDay, at: new Date(now) });
    const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: config.balance.ledgerRetention, carryOver: carryOverTypesOf(catalog) });
    const scheduler = createRenewalScheduler({
      store: { ...renewals, claimDue: async () => [sub.gpsi] },
      clock: createBillingClock(1, 0, () => now),
      publish: async () => undefined,
      log: pino({ level: 'silent' }),
      settings: { pollIntervalMs: 1000, batchSize: 1, leaseMs: 60_000, maxCatchUpCycles: 1000 },
      realNow: () => now,
    });
    const meta = (operation: string): CommandMeta => ({
      gpsi: sub.gpsi,
      wholesaleCustomerId: sub.wholesaleCustomerId,
      commandId: randomUUID(),
      correlationId: randomUUID(),
      operation,
      at: new Date(now).toISOString(),
    });
    const refusedOr = <T>(call: Promise<T>) => call.catch((error: { code?: string }) => expect(['BAD_REQUEST', 'NOT_FOUND']).toContain(error.code));
    for (const step of history) {
      if (step.kind === 'update') {
        const { balances } = await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]);
        const update = { actions: actionsOf(step, balances, sub.gpsi), problems: [] };
        await refusedOr(balance.balances.updateBalances(meta('UpdateBalances'), update, {}, creditValidityOf(catalog)));
      } else if (step.kind === 'addBucket') {
        await balance.balances.addBuckets(meta('AddBuckets'), { bucketRefIds: [step.bucketRefId], seeds: seedsOf(catalog.buckets.get(step.bucketRefId)!) });
      } else if (step.kind === 'cancel') {
        await refusedOr(balance.balances.cancelBuckets(meta('CancelBuckets'), [{ id: step.bucketRefId, path: 'bucketRefId[0]' }]));
      } else {
        now += stepDuration(step);
        await scheduler.tick();
      }
    }
    const entries = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 500);
    expect(entries.length).toBeLessThan(500); // the whole ledger
    const ledger: SubBalanceChange[] = entries.reverse().map(({ at: _at, correlationId: _c, operation: _o, ...change }) => change);
    const { balances } = await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]);
    return { gpsi: sub.gpsi, ledger, balances };
  }

  it('the ledger sums to every balance, and the scripts agree with the pure rules step by step', async () => {
    const exercised: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(activation, fc.array(historyStep, { maxLength: 20 }), async (start, history) => {
        const lua = await runOnRedis(start, history);
        const report = checkLedger(lua.ledger, lua.balances, allocationOf(catalog));
        expect(report.problems).toEqual([]);
        const pure = runPure(catalog, lua.gpsi, start, history);
        expect(lua.ledger).toEqual(pure.ledger);
        expect(lua.balances).toEqual(pure.balances);
        for (const [kind, n] of Object.entries(report.kinds)) exercised[kind] = (exercised[kind] ?? 0) + n;
      }),
      { numRuns: 100 },
    );
    console.log(`changes checked over 100 random histories on ${topology.name}: ${JSON.stringify(exercised)}`);
    expect(Object.keys(exercised)).toEqual(expect.arrayContaining(['Created', 'Add', 'Subtract', 'Renewed', 'Expired', 'CreditExpired', 'Removed']));
  });
});
