import { randomUUID } from 'node:crypto';
import { startLocalRedis } from '../../dev/stack';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { subscriberKeys } from '../../src/adapters/redis/keys';
import { createRedisRenewalStore } from '../../src/adapters/redis/renewal-store';
import { createBalanceComponents } from '../../src/app/balance';
import type { ServiceConfig } from '../../src/app/config';
import { carryOverTypesOf } from '../../src/domain/catalog/catalog';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import type { BalanceStore, CommandMeta, RenewalStore } from '../../src/handlers/balance/ports';
import type { SubscriptionLifecycle } from '../../src/domain/subscription';
import { testConfig } from '../support/harness';
import { createPreviousRelease } from '../support/previous-release';
import { createPendingSubscription, type TestSubscription } from '../support/subscriptions';

/**
 * A rolling restart: workers of the release before (test/support/previous-release, 938e116, records
 * without a format) and of this one (records naming their format, record-format.ts) on one Redis, each
 * reading and changing what the other wrote. Both must give the same answers — history, balances, replays
 * of recorded outcomes, the renewal outbox — and a record of a format newer than a worker reads must be
 * refused by it, not misread.
 */
interface Worker {
  subscriptions: SubscriptionLifecycle;
  balances: BalanceStore;
  renewals: RenewalStore;
}

describe('stored record formats across a rolling restart (the release before and this one on one Redis)', () => {
  let config: ServiceConfig;
  let redis: RedisClient;
  let dispose: () => Promise<void>;
  let previous: Worker;
  let current: Worker;

  beforeAll(async () => {
    const started = await startLocalRedis({ appendOnly: false });
    dispose = () => started.dispose();
    config = testConfig({ REDIS_URL: started.url, REDIS_CLUSTER: 'false' });
    redis = createRedisClient({ urls: config.redis.urls, cluster: false });
    const catalog = loadCatalogFile(config.catalogFile);
    previous = createPreviousRelease({ config, catalog, redis });
    const components = createBalanceComponents({ config, catalog, redis });
    current = {
      ...components,
      renewals: createRedisRenewalStore(redis, { keyPrefix: config.redis.keyPrefix, ledgerRetention: config.balance.ledgerRetention, carryOver: carryOverTypesOf(catalog) }),
    };
  });

  afterAll(async () => {
    await redis?.quit();
    await dispose?.();
  });

  const keysOf = (sub: TestSubscription) => subscriberKeys(config.redis.keyPrefix, sub.gpsi);
  const meta = (sub: TestSubscription): CommandMeta => ({
    gpsi: sub.gpsi,
    wholesaleCustomerId: sub.wholesaleCustomerId,
    commandId: randomUUID(),
    correlationId: randomUUID(),
    operation: 'UpdateBalances',
    at: new Date().toISOString(),
  });
  /** On the WP-BASIC data allowance (instance 4); quantities in MB, one with a fraction (no `k`). */
  const update = (sub: TestSubscription, action: 'Add' | 'Subtract', quantity: number) =>
    checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action, quantity, unitType: 'MB' }]);
  const data = async (worker: Worker, sub: TestSubscription) => (await worker.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).balances[3];

  /** The same answers from both workers, whoever wrote the records. */
  const expectSameAnswers = async (sub: TestSubscription) => {
    const visible = [sub.wholesaleCustomerId];
    expect(await current.balances.history(sub.gpsi, visible, 500)).toEqual(await previous.balances.history(sub.gpsi, visible, 500));
    expect(await current.balances.queryBalances(sub.gpsi, visible)).toEqual(await previous.balances.queryBalances(sub.gpsi, visible));
    expect(await current.renewals.pending(sub.gpsi)).toEqual(await previous.renewals.pending(sub.gpsi));
    expect(await current.renewals.state(sub.gpsi)).toEqual(await previous.renewals.state(sub.gpsi));
    expect(await current.subscriptions.status(sub.gpsi)).toEqual(await previous.subscriptions.status(sub.gpsi));
  };

  /** Activation, a fractional Subtract, an Add (purchased credit), a renewal: every balance record kind. */
  const play = async (writer: Worker, sub: TestSubscription) => {
    const activation = `activate-${randomUUID()}`;
    const activated = await writer.subscriptions.activate(sub.gpsi, new Date(), activation);
    const used = { meta: meta(sub), update: update(sub, 'Subtract', 12.5) };
    const first = await writer.balances.updateBalances(used.meta, used.update);
    await writer.balances.updateBalances(meta(sub), update(sub, 'Add', 3));
    const state = await writer.renewals.state(sub.gpsi);
    const cycleStart = state!.nextRenewalAt!;
    const next = new Date(Date.parse(cycleStart) + 31 * 86_400_000).toISOString();
    expect(await writer.renewals.renew(sub.gpsi, { at: new Date().toISOString(), cycleStart, nextRenewalAt: next, correlationId: `renew-${randomUUID()}` })).toBe('renewed');
    return { activation, activated, used, first };
  };

  /** Reads what `writer` wrote with `reader`, replays its records, changes them on, and both agree throughout. */
  const handOver = async (writer: Worker, reader: Worker) => {
    const sub = await createPendingSubscription(writer.subscriptions);
    const written = await play(writer, sub);
    await expectSameAnswers(sub);

    // a redelivered command: the record the writer left answers it, read by the other worker as by the writer
    const replayedByWriter = await writer.balances.updateBalances(written.used.meta, written.used.update);
    expect(replayedByWriter).toMatchObject({ replayed: true, changes: written.first.changes, balances: written.first.balances });
    expect(await reader.balances.updateBalances(written.used.meta, written.used.update)).toEqual(replayedByWriter);
    expect(await reader.subscriptions.activate(sub.gpsi, new Date(), written.activation)).toEqual(await writer.subscriptions.activate(sub.gpsi, new Date(), written.activation));

    // the other worker changes the subscription on: exact amounts, and both still agree
    const before = await data(reader, sub);
    await reader.balances.updateBalances(meta(sub), update(sub, 'Subtract', 1.5));
    await reader.balances.updateBalances(meta(sub), update(sub, 'Add', 2));
    expect(await data(writer, sub)).toMatchObject({ remaining: before.remaining - 1500 + 2000, purchased: before.purchased + 2000 });
    await expectSameAnswers(sub);
    const history = await reader.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 500);
    expect(history.map((e) => [e.operation, e.change])).toEqual([
      ['UpdateBalances', 'Add'],
      ['UpdateBalances', 'Subtract'],
      ...['Voice', 'SMS', 'MMS', 'Data'].reverse().map(() => ['BillCycleRenewal', 'Renewed']),
      ['UpdateBalances', 'Add'],
      ['UpdateBalances', 'Subtract'],
      ...['Voice', 'SMS', 'MMS', 'Data'].map(() => ['SubscriptionActivation', 'Created']),
    ]);
    expect(history[1]).toMatchObject({ quantity: 1500, before: { remaining: before.remaining }, after: { remaining: before.remaining - 1500 } });
    return sub;
  };

  it('records the release before wrote: this version answers as it did (history, balances, replays, renewal outbox) and changes them on', async () => {
    await handOver(previous, current);
  });

  it('records this version writes: the release before reads them as its own, replays them and changes them on', async () => {
    const sub = await handOver(current, previous);
    // they are marked: the balances hash, the subscription, every ledger entry, the renewal outbox's records
    const keys = keysOf(sub);
    expect(await redis.hget(keys.balances, 'v')).toBe('2');
    expect(await redis.hget(keys.subscription, 'v')).toBe('2');
    const entries = await redis.lrange(keys.ledger, 0, -1);
    expect(entries.slice(2).every((entry) => /,2[;|]/.test(entry))).toBe(true); // the last two: the release before's
  });

  it('a record of a newer format stops this version instead of being misread; the release before misreads it silently', async () => {
    const sub = await createPendingSubscription(current.subscriptions);
    await play(current, sub);
    const keys = keysOf(sub);
    const visible = [sub.wholesaleCustomerId];
    const [newest] = await redis.lrange(keys.ledger, 0, 0);
    await redis.lset(keys.ledger, 0, newest.replace(/,2([;|])/, ',3$1'));
    await expect(current.balances.history(sub.gpsi, visible, 10)).rejects.toThrow('stored ledger entry of format 3');
    await expect(previous.balances.history(sub.gpsi, visible, 10)).resolves.toHaveLength(4 + 2 + 4);

    await redis.hset(keys.balances, 'v', '3');
    await expect(current.balances.queryBalances(sub.gpsi, visible)).rejects.toThrow('stored balances hash of format 3');
    await expect(current.balances.updateBalances(meta(sub), update(sub, 'Subtract', 1))).rejects.toThrow('stored balances hash of format 3');
    await expect(previous.balances.queryBalances(sub.gpsi, visible)).resolves.toBeDefined();

    await redis.hset(keys.subscription, 'v', '3');
    await expect(current.subscriptions.status(sub.gpsi)).rejects.toThrow('stored subscription of format 3');
    const [outboxed] = await redis.lrange(keys.renewalOutbox, 0, 0);
    await redis.lset(keys.renewalOutbox, 0, outboxed.replace('"v":2', '"v":3'));
    await expect(current.renewals.pending(sub.gpsi)).rejects.toThrow('stored balance record of format 3');
  });

  it('the format marker costs a few bytes per ledger entry and per record', async () => {
    const written = async (writer: Worker) => {
      const sub = await createPendingSubscription(writer.subscriptions);
      await play(writer, sub);
      const keys = keysOf(sub);
      const entries = await redis.lrange(keys.ledger, 0, -1);
      const memory = async (key: string) => Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      return { entries, outbox: await redis.lrange(keys.renewalOutbox, 0, -1), hashes: [await memory(keys.balances), await memory(keys.subscription)] };
    };
    const bytes = (texts: string[]) => texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
    const before = await written(previous);
    const after = await written(current);
    expect(after.entries).toHaveLength(before.entries.length);
    const perEntry = (bytes(after.entries) - bytes(before.entries)) / after.entries.length;
    const perOutboxRecord = (bytes(after.outbox) - bytes(before.outbox)) / after.outbox.length;
    process.stderr.write(
      `ledger: ${bytes(before.entries) / before.entries.length} -> ${bytes(after.entries) / after.entries.length} bytes per entry (${after.entries.length} entries: ${before.entries.map((e) => Buffer.byteLength(e)).join(',')} -> ${after.entries.map((e) => Buffer.byteLength(e)).join(',')}); renewal record ${bytes(before.outbox)} -> ${bytes(after.outbox)}; balances, subscription hash ${before.hashes.join(', ')} -> ${after.hashes.join(', ')} bytes (MEMORY USAGE)\n`,
    );
    expect(perEntry).toBeLessThanOrEqual(8);
    expect(perOutboxRecord).toBeLessThanOrEqual(6);
  });
});
