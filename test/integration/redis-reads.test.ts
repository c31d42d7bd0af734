import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { subscriberKeys } from '../../src/adapters/redis/keys';
import { RedisNumberFacts } from '../../src/adapters/redis/number-facts';
import { createBalanceComponents } from '../../src/app/balance';
import { testConfig } from '../support/harness';
import { createActiveSubscription } from '../support/subscriptions';

/**
 * QueryBalances and CheckPortInEligibility run no script: each is two commands in one write, one round trip
 * (what the benchmark counts them as, bench/redis-probe.ts). Measured by Redis itself on a server of the
 * test's own, so nothing else reads: INFO's total_reads_processed grows by one per read of a client's
 * socket, and two commands in one write are one read.
 */
describe('the reads that run no script', () => {
  let server: LocalRedis;
  let redis: RedisClient;
  let probe: RedisClient;

  beforeAll(async () => {
    server = await startLocalRedis({ appendOnly: false });
    redis = createRedisClient({ urls: [server.url], cluster: false });
    probe = createRedisClient({ urls: [server.url], cluster: false });
    await Promise.all([redis.ping(), probe.ping()]);
  });

  afterAll(async () => {
    redis?.disconnect();
    probe?.disconnect();
    await server?.dispose();
  });

  /** Reads of client sockets Redis made while `call` ran. */
  const readsBy = async (call: () => Promise<unknown>) => {
    const readsProcessed = async () => Number(/^total_reads_processed:(\d+)/m.exec(await probe.info('stats'))?.[1]);
    const before = await readsProcessed();
    await call();
    return (await readsProcessed()) - before - 1; // less the second INFO's own read
  };

  it('QueryBalances and CheckPortInEligibility each reach Redis in one read; the same reads awaited one by one take two', async () => {
    const config = testConfig({ REDIS_URL: server.url, REDIS_CLUSTER: 'false' });
    const { balances, subscriptions } = createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis });
    const sub = await createActiveSubscription(subscriptions);
    const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);

    expect(await readsBy(() => balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]))).toBe(1);
    expect(await readsBy(() => new RedisNumberFacts(redis, config.redis.keyPrefix).read(sub.gpsi))).toBe(1);
    expect(
      await readsBy(async () => {
        await redis.hmget(keys.subscription, 'status', 'wholesaleCustomerId');
        await redis.hgetall(keys.balances);
      }),
    ).toBe(2);
  });
});
