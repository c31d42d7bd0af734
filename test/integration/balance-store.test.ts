import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { BALANCES_OWNER_FIELD, renewalDueKey, subscriberKeys } from '../../src/adapters/redis/keys';
import { observeRedisCalls } from '../../src/adapters/redis/call-timing';
import { createRedisRenewalStore } from '../../src/adapters/redis/renewal-store';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import { cycleStartAtOrBefore } from '../../src/domain/balance/bill-cycle';
import { createBillingClock } from '../../src/domain/balance/clock';
import { buildCatalog, carryOverTypesOf, creditValidityOf, UNIT_BY_SUB_BALANCE_TYPE } from '../../src/domain/catalog/catalog';
import { seedsOf } from '../../src/domain/balance/seeds';
import { validityEnd } from '../../src/domain/balance/validity';
import type { OutgoingMessage } from '../../src/contract/messages';
import { createRenewalScheduler } from '../../src/schedulers/balance-renewal';
import type { ServiceConfig } from '../../src/app/config';
import { evaluateUpdate } from '../support/balance-model';
import { markThresholds } from '../../src/domain/balance/thresholds';
import type { BalanceAction, ShownSubBalance } from '../../src/domain/balance/model';
import type { BalanceOutcome } from '../../src/domain/balance/outcome';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import type { CommandMeta } from '../../src/handlers/balance/ports';
import { testConfig } from '../support/harness';
import { createActiveSubscription, createPendingSubscription, newSubscription, randomCustomer, type TestSubscription } from '../support/subscriptions';
import { redisTopologies } from '../support/redis-topologies';

/**
 * The balance Lua scripts and stores against a real Redis — a single node and a three-master Cluster
 * (same code, keys of one subscription in one hash tag: no CROSSSLOT).
 */
describe.each(redisTopologies())('balance store on Redis ($name)', (topology) => {
  let config: ServiceConfig;
  let redis: RedisClient;
  let balance: BalanceComponents;

  beforeAll(async () => {
    config = testConfig(await topology.env());
    redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    balance = createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis });
  });

  afterAll(async () => {
    await redis?.quit();
    await topology.stop();
  });

  const meta = (sub: TestSubscription, overrides: Partial<CommandMeta> = {}): CommandMeta => ({
    gpsi: sub.gpsi,
    wholesaleCustomerId: sub.wholesaleCustomerId,
    commandId: randomUUID(),
    correlationId: randomUUID(),
    operation: 'UpdateBalances',
    at: new Date().toISOString(),
    ...overrides,
  });

  /** Everything Redis holds for a subscription, to prove a refused command changed nothing. */
  const snapshot = async (gpsi: string) => {
    const keys = subscriberKeys(config.redis.keyPrefix, gpsi);
    return { sub: await redis.hgetall(keys.subscription), bal: await redis.hgetall(keys.balances), ledger: await redis.lrange(keys.ledger, 0, -1) };
  };

  const balancesOf = async (sub: TestSubscription) => (await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).balances;
  const addOne = (sub: TestSubscription, id: string, quantity = 1000) =>
    balance.balances.updateBalances(meta(sub), checkUpdateActions([{ subBalanceInstId: id, subBalanceType: 'On-Net Data', action: 'Add', quantity: quantity / 1000, unitType: 'MB' }]));

  describe('subscription lifecycle', () => {
    it('activation instantiates the plan primary bucket and the requested add-ons, once', async () => {
      const pending = await createPendingSubscription(balance.subscriptions, { bucketRefIds: ['2000002', 'unknown'], billCycleStartDay: 5 });
      const sub = { ...pending, events: await balance.subscriptions.activate(pending.gpsi, new Date(), 'first-cause') };
      expect(await balance.subscriptions.status(sub.gpsi)).toEqual({ status: 'ACTIVE', wholesaleCustomerId: sub.wholesaleCustomerId });
      expect((await balance.subscriptions.status(sub.gpsi))?.status).toBe('ACTIVE');
      const balances = await balancesOf(sub);
      expect(balances.map((b) => [b.subBalanceInstId, b.bucketRefId, b.subBalanceType, b.allocated, b.remaining, b.rollover])).toEqual([
        [`${sub.gpsi}-1`, '1000001', 'On-Net Voice', 500_000, 500_000, 0],
        [`${sub.gpsi}-2`, '1000001', 'On-Net SMS', 1_000_000, 1_000_000, 0],
        [`${sub.gpsi}-3`, '1000001', 'On-Net MMS', 100_000, 100_000, 0],
        [`${sub.gpsi}-4`, '1000001', 'On-Net Data', 5_120_000, 5_120_000, 0],
        [`${sub.gpsi}-5`, '2000002', 'On-Net Data', 5_120_000, 5_120_000, 0],
      ]);
      const [event] = sub.events;
      expect(event.recordName).toBe('wholesale.balance.v1.SubscriptionActivated');
      expect(event.value).toMatchObject({
        gpsi: sub.gpsi,
        wholesaleCustomerId: sub.wholesaleCustomerId,
        subscriberId: sub.subscriberId,
        wholesalePlanId: 'WP-BASIC',
        primaryBucketRefId: '1000001',
        addOnBucketRefIds: ['2000002'],
        billCycleStartDay: 5,
      });
      expect((event.value.changes as { change: string }[]).map((c) => c.change)).toEqual(Array(5).fill('Created'));
      expect((event.value.nextRenewalAt as string).slice(8, 19)).toBe('05T00:00:00');

      // The same cause again: the outcome recorded under it, so the very same event.
      expect(await balance.subscriptions.activate(sub.gpsi, new Date(), 'first-cause')).toEqual(sub.events);
      // Another cause, or the record expired: the current state, no changes, the same event id.
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      expect(await redis.ttl(keys.commandOutcome('first-cause'))).toBeGreaterThan(0);
      expect(await redis.hexists(keys.subscription, 'activation')).toBe(0);
      const other = await balance.subscriptions.activate(sub.gpsi, new Date(), 'another-cause');
      await redis.del(keys.commandOutcome('first-cause'));
      for (const [again] of [other, await balance.subscriptions.activate(sub.gpsi, new Date(), 'first-cause')]) {
        expect(again).toMatchObject({ recordName: event.recordName, key: event.key, cloudEvent: event.cloudEvent });
        expect(again.value).toEqual({ ...event.value, causeId: again.value.causeId, correlationId: again.value.causeId, changes: [] });
      }
      expect(other[0].value.causeId).toBe('another-cause');
      expect(await balancesOf(sub)).toEqual(balances);
      const due = await redis.zscore(renewalDueKey(config.redis.keyPrefix), sub.gpsi);
      expect(Number(due)).toBe(balance.clock.toRealMs(new Date(event.value.nextRenewalAt as string)));
    });

    it('a plan with a bill cycle time zone: cycles start at its local midnight (the evening before in UTC for New York), across DST', async () => {
      const document = JSON.parse(readFileSync(config.catalogFile, 'utf8'));
      const usBucket = { ...document.buckets[0], bucketRefId: '1000901' };
      const catalog = buildCatalog({
        plans: [...document.plans, { wholesalePlanId: 'WP-US', name: 'US plan', primaryBucketRefId: '1000901', billCycleTimeZone: 'America/New_York' }],
        buckets: [...document.buckets, usBucket],
      });
      const us = createBalanceComponents({ config, catalog, redis });
      // 22:00 on Feb 28 in New York: still February's cycle there, though March 1 in UTC.
      const sub = await createActiveSubscription(us.subscriptions, { wholesalePlanId: 'WP-US', billCycleStartDay: 1, at: new Date('2026-03-01T03:00:00Z') });
      expect(sub.events[0].value).toMatchObject({ billCycleTimeZone: 'America/New_York', cycleStart: '2026-02-01T05:00:00.000Z', nextRenewalAt: '2026-03-01T05:00:00.000Z' });

      const published: OutgoingMessage[] = [];
      const realNow = () => Date.parse('2026-04-20T00:00:00Z');
      const scheduler = createRenewalScheduler({
        store: createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 }),
        clock: createBillingClock(1, 0, realNow),
        publish: async (messages) => void published.push(...messages),
        log: pino({ level: 'silent' }),
        settings: { pollIntervalMs: 1000, batchSize: 100, leaseMs: 60_000, maxCatchUpCycles: 12 },
        realNow,
      });
      await scheduler.tick();
      const renewals = published.filter((m) => m.key === sub.gpsi).map((m) => [m.value.billCycleTimeZone, m.value.cycleStart, m.value.nextRenewalAt]);
      // March 8 moved New York to EDT: midnight is 04:00Z from then on.
      expect(renewals).toEqual([
        ['America/New_York', '2026-03-01T05:00:00.000Z', '2026-04-01T04:00:00.000Z'],
        ['America/New_York', '2026-04-01T04:00:00.000Z', '2026-05-01T04:00:00.000Z'],
      ]);
    });

    it('createPending is idempotent per command, leaves a live subscription alone and starts over after a cancellation', async () => {
      const subscription = newSubscription();
      const at = new Date();
      expect(await balance.subscriptions.createPending(subscription, 'cmd-a', at)).toBe(true);
      expect(await balance.subscriptions.createPending(subscription, 'cmd-a', at)).toBe(true);
      expect(await balance.subscriptions.createPending({ ...subscription, wholesaleCustomerId: 'OTHER' }, 'cmd-b', at)).toBe(false);
      expect(await balance.subscriptions.status(subscription.gpsi)).toEqual({ status: 'PENDING', wholesaleCustomerId: subscription.wholesaleCustomerId });

      const cancelled = await balance.subscriptions.cancel(subscription.gpsi, at, 'PortCancelled', 'cause-1', 'corr-1');
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]).toMatchObject({
        recordName: 'wholesale.balance.v1.SubscriptionCancelled',
        key: subscription.gpsi,
        value: { reason: 'PortCancelled', correlationId: 'corr-1', changes: [] },
      });
      expect(await balance.subscriptions.cancel(subscription.gpsi, new Date(), 'again', 'cause-2')).toEqual(cancelled);
      expect((await balance.subscriptions.status(subscription.gpsi))?.status).toBe('CANCELLED');

      expect(await balance.subscriptions.createPending({ ...subscription, wholesaleCustomerId: 'NEWOWNER' }, 'cmd-c', at)).toBe(true);
      expect(await balance.subscriptions.status(subscription.gpsi)).toEqual({ status: 'PENDING', wholesaleCustomerId: 'NEWOWNER' });
    });

    it('cancel leaves an active subscription alone; an unknown number has no status', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      expect(await balance.subscriptions.cancel(sub.gpsi, new Date(), 'late', 'cause')).toEqual([]);
      expect((await balance.subscriptions.status(sub.gpsi))?.status).toBe('ACTIVE');
      expect(await balance.subscriptions.status(newSubscription().gpsi)).toBeUndefined();
    });

    it('sub-balance ids are never reused for a number, even by its next subscription', async () => {
      const pending = await createPendingSubscription(balance.subscriptions);
      await balance.subscriptions.activate(pending.gpsi, new Date(), 'c1');
      const { gpsi } = pending;
      await redis.hset(subscriberKeys(config.redis.keyPrefix, gpsi).subscription, 'status', 'CANCELLED'); // as a future disconnect would
      await balance.subscriptions.createPending(newSubscription({ gpsi, wholesaleCustomerId: pending.wholesaleCustomerId }), 'again', new Date());
      await balance.subscriptions.activate(gpsi, new Date(), 'c2');
      const ids = (await balancesOf(pending)).map((b) => b.subBalanceInstId);
      expect(ids).toEqual([5, 6, 7, 8].map((n) => `${gpsi}-${n}`));
    });
  });

  describe('memory', () => {
    it('a subscription with WP-BASIC and two add-ons keeps :sub and :bal as listpacks and one ledger entry', async () => {
      // As bench/seed.ts seeds them: through the subscription store, createPending then activate.
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-BASIC', bucketRefIds: ['2000002', '2000004'] });
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      expect(await redis.hlen(keys.balances)).toBe(9); // seven sub-balances, the owner mark and the rows' format
      expect(await redis.hget(keys.balances, 'v')).toBe('2');
      expect(await redis.hget(keys.balances, BALANCES_OWNER_FIELD)).toBe(sub.wholesaleCustomerId);
      expect(await redis.object('ENCODING', keys.subscription)).toBe('listpack');
      expect(await redis.object('ENCODING', keys.balances)).toBe('listpack');
      expect(await redis.llen(keys.ledger)).toBe(1);
      // Activated after the cycle's first day: 'x' marks a partial first cycle whose unused part does not roll over.
      expect(await redis.hget(keys.balances, '5')).toBe('2000002|A|On-Net Data|MB|5120000|5120000|0|2560000|0||x');
      const [activation] = await redis.lrange(keys.ledger, 0, 0);
      expect(activation).toContain('|SubscriptionActivation|Created,1,1000001,On-Net Voice,Min,,,,,,500k,,,,,,,2;'); // the format on its first longest change
      const [primaryData] = (await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 7)).filter((e) => e.subBalanceInstId === `${sub.gpsi}-4`);
      expect(primaryData).toMatchObject({ change: 'Created', after: { remaining: 5_120_000, allocated: 5_120_000, rollover: 0 } });
    });

    it('a dated pass and purchased data credit keep :bal a listpack: their dates sit in a short field of their own', async () => {
      const catalog = loadCatalogFile(config.catalogFile);
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-BASIC', bucketRefIds: ['2000002', '2000004'] });
      await balance.balances.addBuckets(meta(sub, { operation: 'AddBuckets' }), { bucketRefIds: ['2000001'], seeds: seedsOf(catalog.buckets.get('2000001')!) });
      const data = { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', unitType: 'MB' };
      await balance.balances.updateBalances(
        meta(sub),
        checkUpdateActions([
          { ...data, action: 'Subtract', quantity: 4500 },
          { ...data, action: 'Add', quantity: 2048 },
        ]),
        {},
        creditValidityOf(catalog),
      );
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      expect(await redis.hget(keys.balances, '8v')).toMatch(/^\d{13}\|\d{13}$/); // the pass: validFrom|validUntil
      expect(await redis.hget(keys.balances, '4v')).toMatch(/^\|\|\d{13}$/); // the primary's data: purchasedUntil
      expect(await redis.object('ENCODING', keys.balances)).toBe('listpack');
    });
  });

  describe('precondition of every balance operation', () => {
    it('NOT_FOUND without a subscription or for another customer; CONFLICT naming the state when not active', async () => {
      const active = await createActiveSubscription(balance.subscriptions);
      const pending = await createPendingSubscription(balance.subscriptions);
      const cancelled = await createPendingSubscription(balance.subscriptions);
      await balance.subscriptions.cancel(cancelled.gpsi, new Date(), 'x', 'y');
      const stranger = { ...active, wholesaleCustomerId: randomCustomer() };
      const nobody = { ...active, gpsi: newSubscription().gpsi };

      await expect(balance.balances.queryBalances(stranger.gpsi, [stranger.wholesaleCustomerId])).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(balance.balances.queryBalances(nobody.gpsi, [nobody.wholesaleCustomerId])).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(balance.balances.history(stranger.gpsi, [stranger.wholesaleCustomerId], 10)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(balance.balances.addBuckets(meta(stranger), { bucketRefIds: [], seeds: [] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(balance.balances.queryBalances(pending.gpsi, [pending.wholesaleCustomerId])).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('PENDING') });
      await expect(balance.balances.cancelBuckets(meta(cancelled), [{ id: '2000001', path: 'bucketRefId[0]' }])).rejects.toMatchObject({
        code: 'CONFLICT',
        problems: [{ path: 'gpsi', reason: 'subscription is CANCELLED' }],
      });
    });

    it('a query (checked by the worker) refuses as a change (checked by its script) does, word for word', async () => {
      const active = await createActiveSubscription(balance.subscriptions);
      const pending = await createPendingSubscription(balance.subscriptions);
      const cancelled = await createPendingSubscription(balance.subscriptions);
      await balance.subscriptions.cancel(cancelled.gpsi, new Date(), 'x', 'y');
      const cases = [{ ...active, wholesaleCustomerId: randomCustomer() }, { ...active, gpsi: newSubscription().gpsi }, pending, cancelled];
      const refusal = (call: Promise<unknown>) =>
        call.then(
          () => undefined,
          (error: { code: string; message: string; problems: unknown }) => ({ code: error.code, message: error.message, problems: error.problems }),
        );
      for (const sub of cases) {
        const byQuery = await refusal(balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]));
        expect(byQuery).toBeDefined();
        expect(byQuery).toEqual(await refusal(balance.balances.addBuckets(meta(sub), { bucketRefIds: [], seeds: [] })));
      }
    });
  });

  describe('buckets', () => {
    it('AddBuckets gives each added bucket its own new sub-balances at full allocation', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' });
      const seed = { bucketRefId: '2000001', bucketKind: 'ADDON' as const, subBalanceType: 'On-Net Data', unitType: 'MB', allocated: 1_024_000, rolloverCap: 0, validity: { cycles: 1 } };
      const at = '2026-03-31T12:00:00.000Z';
      const outcome = await balance.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at }), { bucketRefIds: ['2000001', '2000001'], seeds: [seed, seed] });
      expect(outcome.bucketRefIds).toEqual(['2000001', '2000001']);
      expect(outcome.changes.map((c) => [c.change, c.subBalanceInstId, c.before, c.after])).toEqual([
        ['Created', `${sub.gpsi}-2`, undefined, { remaining: 1_024_000, allocated: 1_024_000, rollover: 0, purchased: 0 }],
        ['Created', `${sub.gpsi}-3`, undefined, { remaining: 1_024_000, allocated: 1_024_000, rollover: 0, purchased: 0 }],
      ]);
      // Each dated from the moment it was added, for one cycle: a calendar month.
      const validFor = { start: Date.parse(at), end: Date.parse('2026-04-30T12:00:00.000Z') };
      expect(outcome.balances.map((b) => [b.subBalanceInstId, b.validFor])).toEqual([
        [`${sub.gpsi}-1`, undefined],
        [`${sub.gpsi}-2`, validFor],
        [`${sub.gpsi}-3`, validFor],
      ]);
      expect(outcome.changes.map((c) => c.validFor)).toEqual([validFor, validFor]);
    });

    it("dates in the subscription's time zone cost one script call: a wrong first guess of the zone is answered and computed again, then remembered", async () => {
      const document = JSON.parse(readFileSync(config.catalogFile, 'utf8'));
      const nyBucket = { ...document.buckets[0], bucketRefId: '1000902' };
      const catalog = buildCatalog({
        ...document,
        plans: [...document.plans, { wholesalePlanId: 'WP-NY', name: 'NY plan', primaryBucketRefId: '1000902', billCycleTimeZone: 'America/New_York' }],
        buckets: [...document.buckets, nyBucket],
      });
      const ny = createBalanceComponents({ config, catalog, redis }); // a new store: it expects UTC
      const sub = await createActiveSubscription(ny.subscriptions, { wholesalePlanId: 'WP-NY' });
      const seed = { bucketRefId: '2000001', bucketKind: 'ADDON' as const, subBalanceType: 'On-Net Data', unitType: 'MB', allocated: 1_024_000, rolloverCap: 0, validity: { cycles: 1 } };
      const calls: string[] = [];
      observeRedisCalls(redis, (operation) => void (operation === 'bucketsAdd' && calls.push(operation)));
      try {
        // 22:00 on 28 February in New York (03:00 on 1 March in UTC): a calendar month there ends elsewhere than in UTC.
        const at = '2026-03-01T03:00:00.000Z';
        const end = validityEnd(Date.parse(at), { cycles: 1 }, 'America/New_York');
        expect(end).not.toBe(validityEnd(Date.parse(at), { cycles: 1 }, 'UTC'));
        const first = await ny.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at }), { bucketRefIds: ['2000001'], seeds: [seed] });
        const second = await ny.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at, commandId: randomUUID() }), { bucketRefIds: ['2000001'], seeds: [seed] });
        const validFor = { start: Date.parse(at), end };
        expect([first.changes[0].validFor, second.changes[0].validFor]).toEqual([validFor, validFor]);
        expect(calls).toHaveLength(3); // the first command twice (UTC guessed, New York answered), the second once
      } finally {
        observeRedisCalls(redis, () => undefined);
      }
    });

    it('SwapPrimaryBucket replaces the primary sub-balances; the current primary again is a CONFLICT', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA', bucketRefIds: ['2000003'] });
      const seed = { bucketRefId: '1000001', bucketKind: 'PRIMARY' as const, subBalanceType: 'On-Net SMS', unitType: 'SMS', allocated: 1_000_000, rolloverCap: 500_000 };
      const outcome = await balance.balances.swapPrimary(meta(sub, { operation: 'SwapPrimaryBucket' }), { bucketRefId: '1000001', wholesalePlanId: 'WP-BASIC', seeds: [seed] });
      expect(outcome).toMatchObject({
        fromBucketRefId: '1000003',
        toBucketRefId: '1000001',
        fromWholesalePlanId: 'WP-DATA',
        subscription: { primaryBucketRefId: '1000001', wholesalePlanId: 'WP-BASIC' },
      });
      expect(outcome.changes.map((c) => [c.change, c.bucketRefId])).toEqual([
        ['Removed', '1000003'],
        ['Created', '1000001'],
      ]);
      expect(outcome.balances.map((b) => b.bucketRefId)).toEqual(['2000003', '1000001']);
      const before = await snapshot(sub.gpsi);
      await expect(balance.balances.swapPrimary(meta(sub), { bucketRefId: '1000001', wholesalePlanId: 'WP-BASIC', seeds: [seed] })).rejects.toMatchObject({
        code: 'CONFLICT',
        problems: [{ path: 'bucketRefId', reason: 'is already the primary bucket of this subscription' }],
      });
      expect(await snapshot(sub.gpsi)).toEqual(before);
    });

    it('CancelBuckets removes every instance of an add-on; a missing bucket is NOT_FOUND, the primary a CONFLICT, and nothing changes then', async () => {
      const sub = await createActiveSubscription(balance.subscriptions, { bucketRefIds: ['2000002', '2000004', '2000002'] });
      const before = await snapshot(sub.gpsi);
      await expect(
        balance.balances.cancelBuckets(meta(sub), [
          { id: '2000002', path: 'bucketRefId[0]' },
          { id: '1000001', path: 'bucketRefId[1]' },
          { id: '2000001', path: 'bucketRefId[2]' },
        ]),
      ).rejects.toMatchObject({
        code: 'NOT_FOUND',
        problems: [
          { path: 'bucketRefId[1]', reason: expect.stringContaining('primary bucket') },
          { path: 'bucketRefId[2]', reason: 'is not a bucket of this subscription' },
        ],
      });
      await expect(balance.balances.cancelBuckets(meta(sub), [{ id: '1000001', path: 'bucketRefId[0]' }])).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await snapshot(sub.gpsi)).toEqual(before);

      const outcome = await balance.balances.cancelBuckets(meta(sub, { operation: 'CancelBuckets' }), [{ id: '2000002', path: 'bucketRefId[0]' }]);
      expect(outcome.bucketRefIds).toEqual(['2000002']);
      expect(outcome.changes.map((c) => [c.change, c.bucketRefId, c.after])).toEqual([
        ['Removed', '2000002', undefined],
        ['Removed', '2000002', undefined],
      ]);
      expect(new Set(outcome.balances.map((b) => b.bucketRefId))).toEqual(new Set(['1000001', '2000004']));
    });
  });

  describe('UpdateBalances', () => {
    it('applies all actions in one step and reports before and after', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const outcome = await balance.balances.updateBalances(
        meta(sub),
        checkUpdateActions([
          { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 12.5, unitType: 'Min' },
          { subBalanceInstId: `${sub.gpsi}-4`, balanceType: 'Main', subBalanceType: 'On-Net Data', action: 'Add', quantity: 0.001, unitType: 'MB' },
        ]),
      );
      expect(outcome.changes.map((c) => [c.change, c.quantity, c.before!.remaining, c.after!.remaining])).toEqual([
        ['Subtract', 12_500, 500_000, 487_500],
        ['Add', 1, 5_120_000, 5_120_001],
      ]);
      expect(outcome.balances.find((b) => b.subBalanceType === 'On-Net Voice')!.remaining).toBe(487_500);
    });

    it('is all or nothing: every problem listed in action order, state unchanged', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const before = await snapshot(sub.gpsi);
      const update = checkUpdateActions([
        { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Add', quantity: 5, unitType: 'MB' },
        { subBalanceInstId: 'missing', subBalanceType: 'On-Net Data', action: 'Add', quantity: 5, unitType: 'MB' },
        { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Data', action: 'Add', quantity: Number.POSITIVE_INFINITY, unitType: 'MB' },
        { subBalanceInstId: `${sub.gpsi}-2`, subBalanceType: 'On-Net SMS', action: 'Subtract', quantity: 1000.001, unitType: 'SMS' },
      ]);
      await expect(balance.balances.updateBalances(meta(sub), update)).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        problems: [
          { path: 'balances[1].subBalanceInstId', reason: 'names no sub-balance of this subscription' },
          { path: 'balances[2].quantity', reason: 'must be a finite number' },
          { path: 'balances[2].subBalanceType', reason: 'must be On-Net Voice for this sub-balance' },
          { path: 'balances[2].unitType', reason: 'must be Min for this sub-balance' },
          { path: 'balances[3].quantity', reason: 'would take the remaining balance below zero (remaining 1000)' },
        ],
      });
      expect(await snapshot(sub.gpsi)).toEqual(before);
    });

    it('a redelivered command returns its recorded outcome and is applied once', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const once = meta(sub);
      const update = checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 20, unitType: 'MB' }]);
      const first = await balance.balances.updateBalances(once, update);
      const second = await balance.balances.updateBalances({ ...once, at: new Date(Date.now() + 5000).toISOString() }, update);
      expect(first.replayed).toBe(false);
      expect(second).toEqual({ ...first, replayed: true });
      expect((await balancesOf(sub))[3].remaining).toBe(5_100_000);
      const refused = meta(sub);
      const tooMuch = checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 6000, unitType: 'MB' }]);
      await expect(balance.balances.updateBalances(refused, tooMuch)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await addOne(sub, `${sub.gpsi}-4`, 5_000_000); // now it would fit, but the redelivery keeps its first answer
      await expect(balance.balances.updateBalances(refused, tooMuch)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('1,000 concurrent Add 1 from several clients end exactly 1,000 higher', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const clients = Array.from({ length: 4 }, () => createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster }));
      try {
        const stores = clients.map((client) => createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis: client }).balances);
        const action = checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Add', quantity: 1, unitType: 'MB' }]);
        await Promise.all(Array.from({ length: 1000 }, (_, i) => stores[i % stores.length].updateBalances(meta(sub), action)));
      } finally {
        await Promise.all(clients.map((c) => c.quit()));
      }
      expect((await balancesOf(sub))[3].remaining).toBe(5_120_000 + 1_000_000);
      // The activation + 1,000 Adds = 1,001 operations, trimmed to the retention (1,000 by default); the newest is the last Add.
      expect(await redis.llen(subscriberKeys(config.redis.keyPrefix, sub.gpsi).ledger)).toBe(config.balance.ledgerRetention);
      const [newest] = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 1);
      expect(newest).toMatchObject({ change: 'Add', quantity: 1000, after: { remaining: 6_120_000 } });
    });

    it('the Lua script agrees with the pure model on random action lists, usage thresholds included', async () => {
      const levels = { '1000001': [50, 80, 100], '2000004': [100] };
      const sub = await createActiveSubscription(balance.subscriptions, { bucketRefIds: ['2000004'] });
      const ids = (await balancesOf(sub)).map((b) => b.subBalanceInstId);
      const arbitraryAction = fc.record({
        subBalanceInstId: fc.constantFrom(...ids, 'ghost'),
        subBalanceType: fc.constantFrom('On-Net Voice', 'On-Net SMS', 'On-Net MMS', 'On-Net Data'),
        unitType: fc.constantFrom('Min', 'SMS', 'MMS', 'MB'),
        action: fc.constantFrom('Add' as const, 'Subtract' as const),
        quantity: fc.integer({ min: 1, max: 2_000_000 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(arbitraryAction, { minLength: 1, maxLength: 6 }), async (actions: BalanceAction[]) => {
          const state = await balancesOf(sub);
          const evaluated = evaluateUpdate(state, actions);
          const expected = { ...evaluated, ...markThresholds(evaluated.balances, new Set(evaluated.changes.map((c) => c.subBalanceInstId)), levels) };
          if (evaluated.problems.length > 0) expected.reached = [];
          const update = { actions, problems: [] };
          const result = await balance.balances.updateBalances(meta(sub), update, levels).then(
            (o) => ({ changes: o.changes, reached: o.thresholds ?? [], problems: [] as unknown[] }), // none reached: left out of the record
            (e) => ({ changes: [], reached: [], problems: e.problems as unknown[] }),
          );
          expect(result.problems).toEqual(expected.problems);
          expect(result.changes).toEqual(expected.changes);
          expect(result.reached).toEqual(expected.reached);
          expect(await balancesOf(sub)).toEqual(expected.balances);
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('recorded outcomes: the payload fingerprint and refusing new changes', () => {
    const subtract = (sub: TestSubscription, quantity: number) =>
      checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity, unitType: 'MB' }]);
    const recordOf = async (sub: TestSubscription, commandId: string) => redis.get(subscriberKeys(config.redis.keyPrefix, sub.gpsi).commandOutcome(commandId));
    const quota = { code: 'RATE_LIMITED', message: 'The idempotency quota of this partner is exhausted' };

    it('the same command id with the same fingerprint replays the recorded outcome, which keeps the fingerprint', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      // Characters JSON escapes (a quote, a backslash, a slash) compare as they were given.
      const once = meta(sub, { fingerprint: 'fp-"a"\\/' });
      const first = await balance.balances.updateBalances(once, subtract(sub, 20));
      expect(JSON.parse((await recordOf(sub, once.commandId))!).fp).toBe('fp-"a"\\/');
      expect(await balance.balances.updateBalances({ ...once, at: new Date(Date.now() + 5000).toISOString() }, subtract(sub, 20))).toEqual({ ...first, replayed: true });
      // Without a fingerprint to compare, the record replays as before.
      expect(await balance.balances.updateBalances({ ...once, fingerprint: undefined }, subtract(sub, 20))).toEqual({ ...first, replayed: true });
      expect((await balancesOf(sub))[3].remaining).toBe(5_100_000);
      // A refusal is recorded with the fingerprint as well.
      const refused = meta(sub, { fingerprint: 'fp-b', operation: 'CancelBuckets' });
      await expect(balance.balances.cancelBuckets(refused, [{ id: '2000001', path: 'bucketRefId[0]' }])).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(JSON.parse((await recordOf(sub, refused.commandId))!)).toMatchObject({ fp: 'fp-b', error: { code: 'NOT_FOUND' } });
    });

    it('the same command id with another fingerprint is a CONFLICT naming the correlation id, and writes nothing', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const once = meta(sub, { fingerprint: 'fp-a' });
      await balance.balances.updateBalances(once, subtract(sub, 20));
      const record = await recordOf(sub, once.commandId);
      const before = await snapshot(sub.gpsi);
      await expect(balance.balances.updateBalances({ ...once, fingerprint: 'fp-other' }, subtract(sub, 30))).rejects.toMatchObject({
        code: 'CONFLICT',
        message: `X-Correlation-Id ${once.correlationId} was already used for a different UpdateBalances command`,
      });
      // A fingerprint that merely starts like the recorded one is another one too.
      await expect(balance.balances.updateBalances({ ...once, fingerprint: 'fp-a2' }, subtract(sub, 20))).rejects.toMatchObject({ code: 'CONFLICT' });
      await expect(balance.balances.addBuckets({ ...once, fingerprint: 'fp"b\\', operation: 'AddBuckets' }, { bucketRefIds: [], seeds: [] })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('different AddBuckets command'),
      });
      expect(await snapshot(sub.gpsi)).toEqual(before);
      expect(await recordOf(sub, once.commandId)).toBe(record);
    });

    it('refuseNew without a recorded outcome answers its error and writes nothing: no record, balances and ledger unchanged', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const before = await snapshot(sub.gpsi);
      const fresh = meta(sub, { fingerprint: 'fp-a', refuseNew: quota });
      await expect(balance.balances.updateBalances(fresh, subtract(sub, 20))).rejects.toMatchObject({ ...quota, problems: [] });
      await expect(balance.balances.addBuckets({ ...fresh, operation: 'AddBuckets' }, { bucketRefIds: ['2000003'], seeds: [] })).rejects.toMatchObject(quota);
      await expect(balance.balances.cancelBuckets({ ...fresh, operation: 'CancelBuckets' }, [{ id: '2000002', path: 'bucketRefId[0]' }])).rejects.toMatchObject(quota);
      expect(await recordOf(sub, fresh.commandId)).toBeNull();
      expect(await snapshot(sub.gpsi)).toEqual(before);
    });

    it('refuseNew with a recorded outcome replays it, and the fingerprint rule still applies', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const once = meta(sub, { fingerprint: 'fp-a' });
      const first = await balance.balances.updateBalances(once, subtract(sub, 20));
      expect(await balance.balances.updateBalances({ ...once, refuseNew: quota }, subtract(sub, 20))).toEqual({ ...first, replayed: true });
      await expect(balance.balances.updateBalances({ ...once, fingerprint: 'fp-b', refuseNew: quota }, subtract(sub, 20))).rejects.toMatchObject({ code: 'CONFLICT' });
      // A record written without a fingerprint (before them) replays whatever the command's is.
      const old = meta(sub);
      const oldFirst = await balance.balances.updateBalances(old, subtract(sub, 1));
      expect(await balance.balances.updateBalances({ ...old, fingerprint: 'fp-c', refuseNew: quota }, subtract(sub, 1))).toEqual({ ...oldFirst, replayed: true });
      expect((await balancesOf(sub))[3].remaining).toBe(5_099_000);
    });
  });

  describe('the record of a balance command', () => {
    /** The sub-balances as a reply shows them, from the balances hash (QueryBalances). */
    const shownNow = async (sub: TestSubscription) =>
      (await balancesOf(sub)).map(({ subBalanceInstId, bucketRefId, subBalanceType, unitType, allocated, remaining, rollover, purchased, validFor, purchasedUntil }) => ({
        subBalanceInstId,
        bucketRefId,
        subBalanceType,
        unitType,
        allocated,
        remaining,
        rollover,
        purchased,
        ...(validFor ? { validFor } : {}),
        ...(purchasedUntil !== undefined ? { purchasedUntil } : {}),
      }));

    it('shows the balances hash after every kind of change, names every change and keeps only the facts its events show', async () => {
      const catalog = loadCatalogFile(config.catalogFile);
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-BASIC', bucketRefIds: ['2000002', '2000004'] });
      const data = { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', unitType: 'MB' };
      const steps: [string, (m: CommandMeta) => Promise<BalanceOutcome>][] = [
        ['UpdateBalances', (m) => balance.balances.updateBalances(m, checkUpdateActions([{ ...data, action: 'Subtract', quantity: 4500 }]), { '1000001': [50, 80, 100] })],
        ['UpdateBalances', (m) => balance.balances.updateBalances(m, checkUpdateActions([{ ...data, action: 'Add', quantity: 2048 }]), {}, creditValidityOf(catalog))],
        [
          'AddBuckets',
          (m) => balance.balances.addBuckets(m, { bucketRefIds: ['2000001', '2000003'], seeds: [...seedsOf(catalog.buckets.get('2000001')!), ...seedsOf(catalog.buckets.get('2000003')!)] }),
        ],
        // All of the data left, purchased credit included: its end date goes, and with it the 4v field.
        ['UpdateBalances', (m) => balance.balances.updateBalances(m, checkUpdateActions([{ ...data, action: 'Subtract', quantity: 620 + 2048 }]))],
        [
          'CancelBuckets',
          (m) =>
            balance.balances.cancelBuckets(m, [
              { id: '2000001', path: 'bucketRefId[0]' },
              { id: '2000004', path: 'bucketRefId[1]' },
            ]),
        ],
        ['SwapPrimaryBucket', (m) => balance.balances.swapPrimary(m, { bucketRefId: '1000003', wholesalePlanId: 'WP-DATA', seeds: seedsOf(catalog.buckets.get('1000003')!) })],
        [
          'CancelBuckets',
          (m) =>
            balance.balances.cancelBuckets(m, [
              { id: '2000002', path: 'bucketRefId[0]' },
              { id: '2000003', path: 'bucketRefId[1]' },
            ]),
        ],
      ];
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      const seen: boolean[] = [];
      for (const [operation, step] of steps) {
        const m = meta(sub, { operation });
        const outcome = await step(m);
        seen.push((await redis.hexists(keys.balances, '4v')) === 1);
        expect(outcome.balances).toEqual(await shownNow(sub));
        const replayed = await step(m);
        expect(replayed).toEqual({ ...outcome, replayed: true });
        for (const c of outcome.changes) expect(c.bucketRefId && c.subBalanceType && c.unitType).toBeTruthy();
        const record = JSON.parse((await redis.get(keys.commandOutcome(m.commandId)))!);
        expect(Object.keys(record).filter((k) => !['v', 't', 'f', 'c', 'r', 'fp', 'bucketRefIds', 'thresholds', 'fromBucketRefId', 'toBucketRefId', 'fromWholesalePlanId'].includes(k))).toEqual(
          [],
        );
        const { subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId } = outcome.subscription;
        expect(record.f.slice(0, 4)).toEqual([subscriptionId, subscriberId, wholesaleCustomerId, wholesalePlanId]);
      }
      expect(seen.slice(0, 4)).toEqual([false, true, true, false]);
      expect(Object.keys(await redis.hgetall(keys.balances)).length).toBeGreaterThan(0);
    });

    it('shows any balances hash as the hash itself reads: every optional field, dates, neighbours of one bucket', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      const amount = fc.integer({ min: 0, max: 2 ** 40 }).map(String);
      const optional = (arb: fc.Arbitrary<string>) => fc.option(arb, { nil: '' });
      const row = fc.record({
        bucketRefId: fc.constantFrom('1000001', '2000002', 'X-9'), // the first a primary bucket, the others add-ons
        type: fc.constantFrom(...Object.keys(UNIT_BY_SUB_BALANCE_TYPE)),
        amounts: fc.tuple(amount, amount, amount, amount, fc.integer({ min: 0, max: 9 }).map(String)),
        alerted: optional(fc.constantFrom('50', '80')),
        firstCycle: optional(fc.constantFrom('r', 'x', 'x700')),
        purchased: optional(fc.integer({ min: 1, max: 2 ** 40 }).map(String)),
        dates: fc.option(fc.tuple(optional(amount), optional(amount), optional(amount)), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 9 }), async (rows) => {
          const hash: Record<string, string> = { [BALANCES_OWNER_FIELD]: sub.wholesaleCustomerId };
          rows.forEach((r, i) => {
            const [allocated, remaining, rollover, cap, endCycle] = r.amounts;
            const fields = [
              r.bucketRefId,
              r.bucketRefId === '1000001' ? 'P' : 'A',
              r.type,
              UNIT_BY_SUB_BALANCE_TYPE[r.type],
              allocated,
              remaining,
              rollover,
              cap,
              endCycle,
              r.alerted,
              r.firstCycle,
              r.purchased,
            ];
            hash[String(i + 1)] = fields.join('|').replace(/\|+$/, '');
            const dates = r.dates?.join('|').replace(/\|+$/, '');
            if (dates) hash[`${i + 1}v`] = dates;
          });
          await redis.del(keys.balances);
          await redis.hset(keys.balances, hash);
          const outcome = await balance.balances.cancelBuckets(meta(sub, { operation: 'CancelBuckets' }), [{ id: 'X-9', path: 'bucketRefId[0]' }]).catch((error: unknown) => error);
          if (rows.some((r) => r.bucketRefId === 'X-9')) expect((outcome as BalanceOutcome).balances).toEqual(await shownNow(sub));
          else expect(outcome).toMatchObject({ code: 'NOT_FOUND' });
        }),
        { numRuns: 40 },
      );
    });

    it('a replay takes the facts its record does not keep from the subscription as it is now', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const once = meta(sub);
      const update = checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 20, unitType: 'MB' }]);
      const first = await balance.balances.updateBalances(once, update);
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      await redis.hset(keys.subscription, 'nextRenewalAt', '2999-01-01T00:00:00.000Z', 'wholesalePlanId', 'WP-OTHER');
      const again = await balance.balances.updateBalances(once, update);
      expect(again.subscription).toEqual({ ...first.subscription, nextRenewalAt: '2999-01-01T00:00:00.000Z' }); // the plan is the record's
      expect(again.changes).toEqual(first.changes);
      expect(again.balances).toEqual(first.balances);
    });
  });

  describe('renewal and ledger', () => {
    it('a renewal writes the owner mark of a subscription activated before it existed, so every one has it within a cycle', async () => {
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 });
      const sub = await createActiveSubscription(balance.subscriptions);
      const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
      await redis.hdel(keys.balances, BALANCES_OWNER_FIELD);
      const { nextRenewalAt } = (await renewals.state(sub.gpsi))!;
      expect(await renewals.renew(sub.gpsi, { at: nextRenewalAt!, cycleStart: nextRenewalAt!, nextRenewalAt: '2999-01-01T00:00:00.000Z', correlationId: `renewal-${sub.gpsi}` })).toBe('renewed');
      expect(await redis.hget(keys.balances, BALANCES_OWNER_FIELD)).toBe(sub.wholesaleCustomerId);
      const [outcome] = await redis.lrange(keys.renewalOutbox, 0, -1);
      expect(JSON.parse(outcome).b).not.toContain(BALANCES_OWNER_FIELD);
    });

    it('a partial first cycle: WP-UNL prorated by the days left, and neither it nor a full first allocation rolls over', async () => {
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 });
      const at = new Date('2026-03-31T12:00:00Z'); // 1 of March's 31 days left (cycles on the 1st, UTC)
      const unl = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-UNL', at });
      const basic = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-BASIC', at }); // firstCycle: full
      const amounts = async (sub: TestSubscription) => (await balancesOf(sub)).map((b) => [b.subBalanceType, b.allocated, b.rollover, b.remaining]);
      expect(await amounts(unl)).toEqual([
        ['On-Net Voice', 161_290, 0, 161_290], // 5000 × 1/31, rounded down to a thousandth
        ['On-Net SMS', 322_580, 0, 322_580],
        ['On-Net MMS', 32_258, 0, 32_258],
        ['On-Net Data', 1_651_612, 0, 1_651_612],
      ]);
      expect(await amounts(basic)).toEqual([
        ['On-Net Voice', 500_000, 0, 500_000],
        ['On-Net SMS', 1_000_000, 0, 1_000_000],
        ['On-Net MMS', 100_000, 0, 100_000],
        ['On-Net Data', 5_120_000, 0, 5_120_000],
      ]);
      for (const sub of [unl, basic]) {
        const { nextRenewalAt } = (await renewals.state(sub.gpsi))!;
        expect(nextRenewalAt).toBe('2026-04-01T00:00:00.000Z');
        const cycle = { at: nextRenewalAt!, cycleStart: nextRenewalAt!, nextRenewalAt: '2026-05-01T00:00:00.000Z', correlationId: `renewal-${sub.gpsi}` };
        expect(await renewals.renew(sub.gpsi, cycle)).toBe('renewed');
      }
      // The first full cycle: the full allocation, nothing carried from the partial one (cap 100 % and 50 %).
      expect(await amounts(unl)).toEqual([
        ['On-Net Voice', 5_000_000, 0, 5_000_000],
        ['On-Net SMS', 10_000_000, 0, 10_000_000],
        ['On-Net MMS', 1_000_000, 0, 1_000_000],
        ['On-Net Data', 51_200_000, 0, 51_200_000],
      ]);
      expect((await amounts(basic)).map(([, allocated, rollover]) => [allocated, rollover])).toEqual([
        [500_000, 0],
        [1_000_000, 0],
        [100_000, 0],
        [5_120_000, 0],
      ]);
      const keys = subscriberKeys(config.redis.keyPrefix, unl.gpsi);
      expect(await redis.hget(keys.balances, '1')).toBe('1000002|P|On-Net Voice|Min|5000000|5000000|0|5000000|0'); // the first-cycle mark is gone
    });

    it('purchased credit (UpdateBalances Add) is kept apart from the grant, used last, and carried over whole where the catalog says so', async () => {
      const catalog = loadCatalogFile(config.catalogFile); // purchasedCredit: Data carries over, SMS does not
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100, carryOver: carryOverTypesOf(catalog) });
      const sub = await createActiveSubscription(balance.subscriptions, { at: cycleStartAtOrBefore(new Date(), 1) }); // a full first cycle
      const data = { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', unitType: 'MB' };
      const sms = { subBalanceInstId: `${sub.gpsi}-2`, subBalanceType: 'On-Net SMS', unitType: 'SMS' };
      const outcome = await balance.balances.updateBalances(
        meta(sub),
        checkUpdateActions([
          { ...data, action: 'Subtract', quantity: 4000 }, // 1120 of the 5120 granted left
          { ...data, action: 'Add', quantity: 3000 }, // bought
          { ...data, action: 'Subtract', quantity: 120 }, // usage takes the grant first: 1000 granted left, 3000 bought
          { ...sms, action: 'Add', quantity: 600 },
          { ...sms, action: 'Subtract', quantity: 1300 }, // the 1000 granted, then 300 of the 600 bought
        ]),
      );
      const amounts = (list: ShownSubBalance[]) =>
        list.filter((b) => [data, sms].some((x) => x.subBalanceInstId === b.subBalanceInstId)).map((b) => [b.subBalanceType, b.allocated, b.rollover, b.purchased, b.remaining]);
      expect(amounts(outcome.balances)).toEqual([
        ['On-Net SMS', 1_000_000, 0, 300_000, 300_000],
        ['On-Net Data', 5_120_000, 0, 3_000_000, 4_000_000],
      ]);
      expect(outcome.changes.map((c) => [c.change, c.quantity, c.before!.purchased, c.after!.purchased])).toEqual([
        ['Subtract', 4_000_000, 0, 0],
        ['Add', 3_000_000, 0, 3_000_000],
        ['Subtract', 120_000, 3_000_000, 3_000_000],
        ['Add', 600_000, 0, 600_000],
        ['Subtract', 1_300_000, 600_000, 300_000],
      ]);
      const { nextRenewalAt } = (await renewals.state(sub.gpsi))!;
      expect(await renewals.renew(sub.gpsi, { at: new Date().toISOString(), cycleStart: nextRenewalAt!, nextRenewalAt: '2999-01-01T00:00:00.000Z', correlationId: `renewal-${sub.gpsi}` })).toBe(
        'renewed',
      );
      // Data: the 1000 granted left roll over (cap 2560) and the 3000 bought stay whole, beside the cap.
      // SMS: the 300 bought lapse with the cycle; they may only roll over within the cap (500), as unused units.
      expect(amounts(await balancesOf(sub))).toEqual([
        ['On-Net SMS', 1_000_000, 300_000, 0, 1_300_000],
        ['On-Net Data', 5_120_000, 1_000_000, 3_000_000, 9_120_000],
      ]);
      const [renewal] = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 4).then((entries) => entries.filter((e) => e.subBalanceInstId === data.subBalanceInstId));
      expect(renewal).toMatchObject({ change: 'Renewed', before: { remaining: 4_000_000, purchased: 3_000_000 }, after: { remaining: 9_120_000, rollover: 1_000_000, purchased: 3_000_000 } });
    });

    it('renews once per cycle: allowance reset, unused part rolled over up to the cap; a dated add-on is left to its own end', async () => {
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 });
      // Activated on the cycle's first day: a full cycle, whose unused part rolls over.
      const sub = await createActiveSubscription(balance.subscriptions, { bucketRefIds: ['2000001'], at: cycleStartAtOrBefore(new Date(), 1) });
      const used = await balance.balances.updateBalances(
        meta(sub),
        checkUpdateActions([
          { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 400, unitType: 'Min' },
          { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 1000, unitType: 'MB' },
        ]),
        { '1000001': [80, 100] },
      );
      expect(used.thresholds?.map((t) => [t.subBalanceInstId, t.percent])).toEqual([[`${sub.gpsi}-1`, 80]]);
      const afterUse = await balancesOf(sub);
      expect(afterUse.map((b) => b.alertedPercent)).toEqual([80, undefined, undefined, undefined, undefined]);
      const pass = afterUse[4];
      const state = (await renewals.state(sub.gpsi))!;
      const cycle = { at: new Date().toISOString(), cycleStart: state.nextRenewalAt!, nextRenewalAt: '2999-01-01T00:00:00.000Z', correlationId: `renewal-${sub.gpsi}` };
      expect(await renewals.renew(sub.gpsi, cycle)).toBe('renewed');
      expect(await renewals.renew(sub.gpsi, cycle)).toBe('not-due');
      const balances = await balancesOf(sub);
      expect(balances.map((b) => [b.subBalanceType, b.allocated, b.rollover, b.remaining])).toEqual([
        ['On-Net Voice', 500_000, 100_000, 600_000], // 100 left, cap 250: all of it rolls over
        ['On-Net SMS', 1_000_000, 500_000, 1_500_000], // 1000 left, cap 500
        ['On-Net MMS', 100_000, 50_000, 150_000],
        ['On-Net Data', 5_120_000, 2_560_000, 7_680_000], // 4120 left, cap 2560
        ['On-Net Data', 1_024_000, 0, 1_024_000], // the data pass (2000001, one cycle from activation): its validity ends it, not renewal
      ]);
      expect(balances[4]).toEqual(pass);
      expect(balances.map((b) => b.alertedPercent)).toEqual([undefined, undefined, undefined, undefined, undefined]); // a new cycle reports afresh
      const [pending] = await renewals.pending(sub.gpsi);
      expect(pending.outcome.subscription).toMatchObject({ cycleNo: 2, cycleStart: cycle.cycleStart, nextRenewalAt: cycle.nextRenewalAt });
      expect(pending.outcome.changes.map((c) => c.change)).toEqual(['Renewed', 'Renewed', 'Renewed', 'Renewed']);
      await renewals.acknowledge(sub.gpsi, pending.token);
      expect(await renewals.pending(sub.gpsi)).toEqual([]);
    });

    it("an add-on valid for one cycle bought on the cycle's last day outlives the cycle start: it expires at its own end, once, and the ledger records it", async () => {
      const catalog = loadCatalogFile(config.catalogFile);
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 });
      // Cycles on the 1st (UTC); the data pass (one cycle) bought on 31 March at 12:00, the cycle's last day.
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA', at: new Date('2026-03-01T00:00:00Z') });
      const bought = '2026-03-31T12:00:00.000Z';
      const added = await balance.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at: bought }), { bucketRefIds: ['2000001'], seeds: seedsOf(catalog.buckets.get('2000001')!) });
      const pass = added.balances.find((b) => b.bucketRefId === '2000001')!;
      expect(pass.validFor).toEqual({ start: Date.parse(bought), end: Date.parse('2026-04-30T12:00:00.000Z') });

      // Midnight: the cycle renews, the pass is untouched (before issue 19 it expired here, 12 hours after it was bought).
      const cycle = { at: '2026-04-01T00:00:01.000Z', cycleStart: '2026-04-01T00:00:00.000Z', nextRenewalAt: '2026-05-01T00:00:00.000Z', correlationId: `renewal-${sub.gpsi}` };
      expect(await renewals.renew(sub.gpsi, cycle)).toBe('renewed');
      expect((await balancesOf(sub)).find((b) => b.subBalanceInstId === pass.subBalanceInstId)).toMatchObject(pass);
      expect(await renewals.state(sub.gpsi)).toMatchObject({ nextRenewalAt: cycle.nextRenewalAt, nextExpiryAt: '2026-04-30T12:00:00.000Z' });

      // Its end: expired once, even when two schedulers run it.
      const expiry = { at: '2026-04-30T12:00:02.000Z', expiredAt: '2026-04-30T12:00:00.000Z', correlationId: `expiry-${sub.gpsi}` };
      expect(await renewals.expire(sub.gpsi, { ...expiry, expiredAt: '2026-04-30T11:59:59.999Z' })).toBe('nothing');
      expect(await renewals.expire(sub.gpsi, expiry)).toBe('expired');
      expect(await renewals.expire(sub.gpsi, expiry)).toBe('nothing');
      expect((await balancesOf(sub)).map((b) => b.bucketRefId)).toEqual(['1000003']);
      expect((await renewals.state(sub.gpsi))!.nextExpiryAt).toBeUndefined();
      const [renewal, expired] = await renewals.pending(sub.gpsi);
      expect(renewal.outcome.changes.map((c) => [c.change, c.bucketRefId])).toEqual([['Renewed', '1000003']]);
      expect(expired.outcome).toMatchObject({ expiredAt: expiry.expiredAt, correlationId: expiry.correlationId });
      const [entry] = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 1);
      const expiredChange = {
        change: 'Expired',
        subBalanceInstId: pass.subBalanceInstId,
        bucketRefId: '2000001',
        subBalanceType: 'On-Net Data',
        unitType: 'MB',
        before: { remaining: 1_024_000, allocated: 1_024_000, rollover: 0, purchased: 0 },
        validFor: pass.validFor,
      };
      expect(expired.outcome.changes).toEqual([expiredChange]);
      expect(entry).toEqual({ ...expiredChange, at: expiry.at, correlationId: expiry.correlationId, operation: 'ValidityExpiry' });
    });

    it("a bucket ending before the next renewal brings the subscription's due time forward; purchased credit expires at its own end", async () => {
      const catalog = loadCatalogFile(config.catalogFile);
      const renewals = createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 });
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA', at: new Date('2026-03-01T00:00:00Z') });
      const dueKey = renewalDueKey(config.redis.keyPrefix);
      expect(Number(await redis.zscore(dueKey, sub.gpsi))).toBe(balance.clock.toRealMs(new Date('2026-04-01T00:00:00Z')));
      // The voice pass lasts 7 days: bought on 20 March, it ends on 27 March, before the renewal of 1 April.
      await balance.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at: '2026-03-20T09:00:00.000Z' }), { bucketRefIds: ['2000003'], seeds: seedsOf(catalog.buckets.get('2000003')!) });
      expect(Number(await redis.zscore(dueKey, sub.gpsi))).toBe(balance.clock.toRealMs(new Date('2026-03-27T09:00:00Z')));

      // Bought data lasts 90 days (catalog purchasedCredit); a later top-up extends what is held.
      const data = { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Data', unitType: 'MB' };
      const creditValidity = creditValidityOf(catalog);
      await balance.balances.updateBalances(meta(sub, { at: '2026-03-02T00:00:00.000Z' }), checkUpdateActions([{ ...data, action: 'Add', quantity: 100 }]), {}, creditValidity);
      const topUp = await balance.balances.updateBalances(meta(sub, { at: '2026-03-10T00:00:00.000Z' }), checkUpdateActions([{ ...data, action: 'Add', quantity: 50 }]), {}, creditValidity);
      const ends = Date.parse('2026-06-08T00:00:00.000Z'); // 10 March + 90 days
      expect(topUp.balances[0]).toMatchObject({ remaining: 10_390_000, purchased: 150_000, purchasedUntil: ends });
      expect(topUp.changes[0]).toMatchObject({ change: 'Add', purchasedUntil: ends });
      expect((await renewals.state(sub.gpsi))!.nextExpiryAt).toBe('2026-03-27T09:00:00.000Z');
      expect(await renewals.expire(sub.gpsi, { at: 'x', expiredAt: '2026-03-27T09:00:00.000Z', correlationId: 'pass-end' })).toBe('expired');
      expect((await renewals.state(sub.gpsi))!.nextExpiryAt).toBe('2026-06-08T00:00:00.000Z');
      expect(await renewals.expire(sub.gpsi, { at: 'y', expiredAt: '2026-06-08T00:00:00.000Z', correlationId: 'credit-end' })).toBe('expired');
      const [, creditEnd] = await renewals.pending(sub.gpsi);
      expect(creditEnd.outcome.changes).toEqual([
        {
          change: 'CreditExpired',
          subBalanceInstId: data.subBalanceInstId,
          bucketRefId: '1000003',
          subBalanceType: 'On-Net Data',
          unitType: 'MB',
          quantity: 150_000,
          before: { remaining: 10_390_000, allocated: 10_240_000, rollover: 0, purchased: 150_000 },
          after: { remaining: 10_240_000, allocated: 10_240_000, rollover: 0, purchased: 0 },
        },
      ]);
      expect((await balancesOf(sub))[0]).not.toHaveProperty('purchasedUntil');
    });

    it('two schedulers taking the same subscription at once (no lease) renew each cycle and expire each end once; the events share their ids', async () => {
      const catalog = loadCatalogFile(config.catalogFile);
      const sub = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA', at: new Date('2026-03-01T00:00:00Z') });
      await balance.balances.addBuckets(meta(sub, { operation: 'AddBuckets', at: '2026-03-31T12:00:00.000Z' }), { bucketRefIds: ['2000001'], seeds: seedsOf(catalog.buckets.get('2000001')!) });
      const clients = [createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster }), createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster })];
      const published: OutgoingMessage[] = [];
      const realNow = () => Date.parse('2026-05-15T00:00:00Z');
      const schedulers = clients.map((client) =>
        createRenewalScheduler({
          store: createRedisRenewalStore(client, { keyPrefix: config.redis.keyPrefix, ledgerRetention: 100 }),
          clock: createBillingClock(1, 0, realNow),
          publish: async (messages) => void published.push(...messages.filter((m) => m.key === sub.gpsi)),
          log: pino({ level: 'silent' }),
          settings: { pollIntervalMs: 1000, batchSize: 100, leaseMs: 0, maxCatchUpCycles: 12 },
          realNow,
        }),
      );
      try {
        for (let round = 0; round < 3; round++) await Promise.all(schedulers.map((s) => s.tick()));
      } finally {
        await Promise.all(clients.map((c) => c.quit()));
      }
      const byId = new Map(published.map((m) => [m.cloudEvent!.id, m]));
      expect([...byId.values()].map((m) => [m.recordName.split('.').pop(), m.value.expiredAt ?? m.value.cycleStart])).toEqual([
        ['BalancesRenewed', '2026-04-01T00:00:00.000Z'],
        ['BalancesExpired', '2026-04-30T12:00:00.000Z'],
        ['BalancesRenewed', '2026-05-01T00:00:00.000Z'],
      ]);
      for (const m of published) expect(m.value).toEqual(byId.get(m.cloudEvent!.id)!.value); // a repeat is the same event
      const ledger = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 100);
      expect(ledger.filter((e) => e.change === 'Expired').map((e) => e.bucketRefId)).toEqual(['2000001']);
      expect(new Set(ledger.filter((e) => e.operation === 'BillCycleRenewal').map((e) => e.correlationId)).size).toBe(2);
    });

    it('keeps every change in the ledger, newest first, one entry per operation, bounded by the retention', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const outcomes = [];
      for (let i = 1; i <= 3; i++) outcomes.push(await addOne(sub, `${sub.gpsi}-4`, i * 1000));
      const entries = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 5);
      expect(entries).toHaveLength(5);
      expect(entries.slice(0, 3).map((e) => e.quantity)).toEqual([3000, 2000, 1000]);
      expect(entries.slice(0, 3)).toEqual(outcomes.reverse().map((o) => ({ ...o.changes[0], at: o.at, correlationId: o.correlationId, operation: 'UpdateBalances' })));
      // The activation's changes follow, last made first: the limit counts changes, not stored entries.
      expect(entries.slice(3).map((e) => [e.change, e.operation, e.subBalanceInstId])).toEqual([
        ['Created', 'SubscriptionActivation', `${sub.gpsi}-4`],
        ['Created', 'SubscriptionActivation', `${sub.gpsi}-3`],
      ]);
      const activation = sub.events[0].value as { changes: { subBalanceInstId: string }[] };
      const all = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 500);
      expect(all.slice(3).map((e) => e.subBalanceInstId)).toEqual(activation.changes.map((c) => c.subBalanceInstId).reverse());

      const small = testConfig({ ...(await topology.env()), BALANCE_LEDGER_RETENTION: '3', REDIS_KEY_PREFIX: config.redis.keyPrefix });
      const bounded = createBalanceComponents({ config: small, catalog: loadCatalogFile(config.catalogFile), redis });
      await bounded.balances.updateBalances(meta(sub), checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Add', quantity: 9, unitType: 'MB' }]));
      // The retention counts operations: the three newest Adds are left, the activation is gone.
      expect(await redis.llen(subscriberKeys(config.redis.keyPrefix, sub.gpsi).ledger)).toBe(3);
      expect((await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 500)).map((e) => e.quantity)).toEqual([9000, 3000, 2000]);
    });

    it('stores one compact entry per operation; a correlationId may hold the separators', async () => {
      const sub = await createActiveSubscription(balance.subscriptions);
      const correlationId = 'a|b,c;d e|';
      const outcome = await balance.balances.updateBalances(
        meta(sub, { correlationId, at: '2025-03-01T10:00:00.000Z' }),
        checkUpdateActions([
          { subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Subtract', quantity: 12.5, unitType: 'MB' },
          { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Voice', action: 'Add', quantity: 1, unitType: 'Min' },
        ]),
      );
      const [stored] = await redis.lrange(subscriberKeys(config.redis.keyPrefix, sub.gpsi).ledger, 0, 0);
      expect(stored).toBe(
        `2025-03-01T10:00:00.000Z|UpdateBalances|Subtract,4,1000001,On-Net Data,MB,12500,5120k,5120k,0,5107500,5120k,0;Add,1,1000001,On-Net Voice,Min,1k,500k,500k,0,501k,500k,0,,1k,,,,2|${correlationId}`, // the format on its longest change
      );
      const entries = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 2);
      expect(entries).toEqual([...outcome.changes].reverse().map((c) => ({ ...c, at: outcome.at, correlationId, operation: 'UpdateBalances' })));
    });
  });
});
