import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { startLocalRedis, startRedisCluster } from '../../dev/stack';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { REDIS_FUNCTION_LIBRARY } from '../../src/adapters/redis/scripts.generated';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import type { ServiceConfig } from '../../src/app/config';
import type { CommandMeta } from '../../src/handlers/balance/ports';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import { testConfig } from '../support/harness';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';

/**
 * The Lua steps run as one Redis function library (FCALL), loaded on first use, on Redises of their own
 * (a single node and a three-master Cluster) so the counts are this file's alone: a Redis that lost the
 * library loads it once for every call in flight; each call starts from its own state although the
 * library outlives calls; read-only steps still answer on a Redis that refuses writes.
 */
const topologies = [
  {
    name: 'single',
    start: async () => {
      const r = await startLocalRedis({ appendOnly: false });
      return { urls: [r.url], cluster: false, stop: () => r.dispose() };
    },
  },
  {
    name: 'cluster',
    start: async () => {
      const c = await startRedisCluster({ masters: 3 });
      return { urls: [...c.urls], cluster: true, stop: () => c.stop() };
    },
  },
];

describe.each(topologies)('Redis function library ($name)', (topology) => {
  let stop: () => Promise<void>;
  let config: ServiceConfig;
  let redis: RedisClient;
  let balance: BalanceComponents;

  beforeAll(async () => {
    const started = await topology.start();
    stop = started.stop;
    config = testConfig({ REDIS_URL: started.urls.join(','), REDIS_CLUSTER: String(started.cluster) });
    redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster });
    balance = createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis });
  });

  afterAll(async () => {
    await redis?.quit();
    await stop?.();
  });

  const primaries = (): (Redis | Cluster)[] => ('nodes' in redis && typeof redis.nodes === 'function' && config.redis.cluster ? redis.nodes('master') : [redis]);
  /** FUNCTION LOAD calls so far, over every primary (INFO commandstats counts the subcommand apart). */
  const loadsSoFar = async () => {
    const infos = await Promise.all(primaries().map((node) => node.info('commandstats')));
    return infos.reduce((sum, info) => sum + Number(/^cmdstat_function\|load:calls=(\d+)/m.exec(info)?.[1] ?? 0), 0);
  };
  const libraries = async () => (await Promise.all(primaries().map((node) => node.call('FUNCTION', 'LIST', 'LIBRARYNAME', REDIS_FUNCTION_LIBRARY.name)))) as unknown[][];

  const meta = (sub: TestSubscription, operation: string): CommandMeta => ({
    gpsi: sub.gpsi,
    wholesaleCustomerId: sub.wholesaleCustomerId,
    commandId: randomUUID(),
    correlationId: randomUUID(),
    operation,
    at: new Date().toISOString(),
  });

  it('a Redis without the library (new, or flushed) gets it once, on every primary, and every call in flight is answered', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    await Promise.all(primaries().map((node) => node.call('FUNCTION', 'FLUSH')));
    const before = await loadsSoFar();
    const answers = await Promise.all(Array.from({ length: 50 }, () => balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 10)));
    expect(answers.map((entries) => entries.length)).toEqual(Array(50).fill(4)); // the activation's four sub-balances created
    expect((await loadsSoFar()) - before).toBe(primaries().length);
    expect((await libraries()).map((found) => found.length)).toEqual(primaries().map(() => 1));
  });

  it('each call starts from its own state: an AddBuckets right after an update of another number answers its own balances only', async () => {
    const updated = await createActiveSubscription(balance.subscriptions);
    const added = await createActiveSubscription(balance.subscriptions, { wholesalePlanId: 'WP-DATA' });
    const action = { subBalanceInstId: `${updated.gpsi}-1`, subBalanceType: 'On-Net Voice', unitType: 'Min', action: 'Subtract', quantity: 1 };
    expect((await balance.balances.updateBalances(meta(updated, 'UpdateBalances'), checkUpdateActions([action]))).changes).toHaveLength(1);
    const seed = { bucketRefId: '2000001', bucketKind: 'ADDON' as const, subBalanceType: 'On-Net Data', unitType: 'MB', allocated: 1_024_000, rolloverCap: 0, validity: { cycles: 1 } };
    const outcome = await balance.balances.addBuckets(meta(added, 'AddBuckets'), { bucketRefIds: ['2000001'], seeds: [seed] });
    expect(outcome.balances.map((b) => b.subBalanceInstId)).toEqual([`${added.gpsi}-1`, `${added.gpsi}-2`]);
    expect((await balance.balances.queryBalances(added.gpsi, [added.wholesaleCustomerId])).balances).toMatchObject(outcome.balances); // the reply shows a part of each
  });

  it('on a Redis refusing writes (full, noeviction) the reads are still answered, scripted or not, and a change refused whole with OOM', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    const before = await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]);
    const history = await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 10);
    const action = { subBalanceInstId: `${sub.gpsi}-1`, subBalanceType: 'On-Net Voice', unitType: 'Min', action: 'Subtract', quantity: 1 };
    await Promise.all(primaries().map((node) => node.config('SET', 'maxmemory-policy', 'noeviction').then(() => node.config('SET', 'maxmemory', '1'))));
    try {
      expect(await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).toEqual(before);
      expect(await balance.balances.history(sub.gpsi, [sub.wholesaleCustomerId], 10)).toEqual(history); // a no-writes function
      await expect(balance.balances.updateBalances(meta(sub, 'UpdateBalances'), checkUpdateActions([action]))).rejects.toThrow(/^OOM/);
    } finally {
      await Promise.all(primaries().map((node) => node.config('SET', 'maxmemory', '0')));
    }
    expect(await balance.balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).toEqual(before);
  });
});
