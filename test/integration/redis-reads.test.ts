import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { BALANCES_OWNER_FIELD, subscriberKeys } from '../../src/adapters/redis/keys';
import { RedisNumberFacts } from '../../src/adapters/redis/number-facts';
import { createBalanceComponents } from '../../src/app/balance';
import { testConfig } from '../support/harness';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import { createActiveSubscription, createPendingSubscription } from '../support/subscriptions';

/**
 * QueryBalances and CheckPortInEligibility run no script: QueryBalances of an ACTIVE subscription is one
 * command, CheckPortInEligibility two in one write, one round trip (what the benchmark counts them as,
 * bench/redis-probe.ts). Measured by Redis itself on a server of the
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

  /** Commands Redis ran while `call` ran, by name. */
  const commandsBy = async (call: () => Promise<unknown>) => {
    const counts = async () => new Map([...(await probe.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
    const before = await counts();
    await call();
    const ran: Record<string, number> = {};
    for (const [name, calls] of await counts()) if (name !== 'info' && calls > (before.get(name) ?? 0)) ran[name] = calls - (before.get(name) ?? 0);
    return ran;
  };

  const components = () => {
    const config = testConfig({ REDIS_URL: server.url, REDIS_CLUSTER: 'false' });
    return { config, ...createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis }) };
  };

  it('QueryBalances of an ACTIVE subscription is one HGETALL: its balances hash carries the owner', async () => {
    const { config, balances, subscriptions } = components();
    const sub = await createActiveSubscription(subscriptions);
    const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
    expect(await redis.hget(keys.balances, BALANCES_OWNER_FIELD)).toBe(sub.wholesaleCustomerId);

    expect(await commandsBy(() => balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]))).toEqual({ hgetall: 1 });
    await expect(balances.queryBalances(sub.gpsi, ['someone-else'])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a subscription not ACTIVE has no owner mark and is refused as before', async () => {
    const { config, balances, subscriptions } = components();
    const pending = await createPendingSubscription(subscriptions);
    expect(await redis.hget(subscriberKeys(config.redis.keyPrefix, pending.gpsi).balances, BALANCES_OWNER_FIELD)).toBeNull();
    await expect(balances.queryBalances(pending.gpsi, [pending.wholesaleCustomerId])).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(balances.queryBalances(pending.gpsi, ['someone-else'])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a subscription activated before the owner mark is answered the same, and its next change writes the mark', async () => {
    const { config, balances, subscriptions } = components();
    const sub = await createActiveSubscription(subscriptions);
    const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);
    const marked = await balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]);
    await redis.hdel(keys.balances, BALANCES_OWNER_FIELD); // as an activation before the mark left it

    expect(await balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId])).toEqual(marked);
    expect(await commandsBy(() => balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]))).toEqual({ hgetall: 2, hmget: 1 });
    await expect(balances.queryBalances(sub.gpsi, ['someone-else'])).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const data = marked.balances.find((b) => b.subBalanceType === 'On-Net Data' && b.bucketKind === 'PRIMARY')!;
    const meta = { gpsi: sub.gpsi, wholesaleCustomerId: sub.wholesaleCustomerId, commandId: 'c-1', correlationId: 'c-1', operation: 'UpdateBalances', at: new Date().toISOString() };
    const outcome = await balances.updateBalances(
      meta,
      checkUpdateActions([{ subBalanceInstId: data.subBalanceInstId, subBalanceType: data.subBalanceType, unitType: data.unitType, action: 'Add', quantity: 1 }]),
    );
    expect(await redis.hget(keys.balances, BALANCES_OWNER_FIELD)).toBe(sub.wholesaleCustomerId);
    expect(outcome.balances.map((b) => b.subBalanceInstId)).toEqual(marked.balances.map((b) => b.subBalanceInstId));
    expect(await redis.get(keys.commandOutcome('c-1'))).not.toContain(`"${BALANCES_OWNER_FIELD}"`);
  });

  it('QueryBalances and CheckPortInEligibility each reach Redis in one read; the same reads awaited one by one take two', async () => {
    const { config, balances, subscriptions } = components();
    const sub = await createActiveSubscription(subscriptions);
    const keys = subscriberKeys(config.redis.keyPrefix, sub.gpsi);

    expect(await readsBy(() => balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]))).toBe(1);
    await redis.hdel(keys.balances, BALANCES_OWNER_FIELD);
    // unmarked: the one HGETALL, then the subscription's HMGET and the HGETALL again, pipelined in one read
    expect(await readsBy(() => balances.queryBalances(sub.gpsi, [sub.wholesaleCustomerId]))).toBe(2);
    expect(await readsBy(() => new RedisNumberFacts(redis, config.redis.keyPrefix).read(sub.gpsi))).toBe(1);
    expect(
      await readsBy(async () => {
        await redis.hmget(keys.subscription, 'status', 'wholesaleCustomerId');
        await redis.hgetall(keys.balances);
      }),
    ).toBe(2);
  });
});
