import { randomUUID } from 'node:crypto';
import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { redisCommand } from '../../dev/stack/redis/local-redis';
import { loadCatalogFile } from '../../src/adapters/catalog/catalog-file';
import { createRedisClient, isRedisUnavailable, type RedisClient } from '../../src/adapters/redis/client';
import { subscriberKeys } from '../../src/adapters/redis/keys';
import { oneConnection } from '../../src/adapters/redis/one-connection';
import { replicatedWrites } from '../../src/adapters/redis/replication';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import type { ServiceConfig } from '../../src/app/config';
import { RetriableError } from '../../src/contract/errors';
import { checkUpdateActions } from '../../src/domain/balance/validation';
import type { CommandMeta } from '../../src/handlers/balance/ports';
import { testConfig } from '../support/harness';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { TcpProxy } from '../support/tcp-proxy';

// A Redis failover in the middle of a worker's slice (issue 51): a primary and its replica behind a TCP proxy,
// as the nemesis runs them. A change the old primary applied and lost with it must not be followed, in the
// same slice, by the next change of its number on the new primary: when the slice comes again, the two would
// be applied in the wrong order.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until the client answers again, on a new connection (the worker's slice comes again after a backoff). */
const reconnected = async (client: RedisClient) => {
  for (;;) {
    const answer = await client.ping().catch(() => undefined);
    if (answer === 'PONG') return;
    await sleep(50);
  }
};
const linkUp = async (replica: LocalRedis) => {
  for (let i = 0; i < 100 && !(await redisCommand(replica.port, 'info', 'replication')).includes('master_link_status:up'); i++) await sleep(100);
};

describe('a slice on one Redis connection (oneConnection) through a failover', () => {
  let primary: LocalRedis;
  let replica: LocalRedis;
  let proxy: TcpProxy;
  let client: RedisClient;
  let config: ServiceConfig;
  let balance: BalanceComponents;

  beforeAll(async () => {
    primary = await startLocalRedis({ appendOnly: false });
    replica = await startLocalRedis({ appendOnly: false, extraArgs: ['--replicaof', primary.host, String(primary.port)] });
    await linkUp(replica);
    proxy = await TcpProxy.start({ host: primary.host, port: primary.port });
    const url = `redis://127.0.0.1:${proxy.port}`;
    config = testConfig({ REDIS_URL: url, REDIS_CLUSTER: 'false' });
    // the worker's client (src/app/service.ts)
    client = createRedisClient({ urls: [url], cluster: false, maxRetriesPerRequest: 20, commandTimeoutMs: 2000, fenced: true });
    balance = createBalanceComponents({ config, catalog: loadCatalogFile(config.catalogFile), redis: client });
  });

  afterAll(async () => {
    client?.disconnect();
    await proxy?.close();
    await Promise.all([primary?.dispose(), replica?.dispose()]);
  });

  /** The replica is promoted (cut off from the primary first): what the primary applies from now on it never has. */
  const replicaPromoted = () => redisCommand(replica.port, 'replicaof', 'no', 'one');

  /** The primary dies and the proxy's connections go to the promoted replica, the primary from now on. */
  const failover = async () => {
    await primary.kill();
    proxy.target = { host: replica.host, port: replica.port };
    proxy.cut();
    [primary, replica] = [replica, primary];
  };

  // every test begins with a primary and its replica: the one a failover killed comes back as the replica
  beforeEach(async () => {
    if (!replica.running) await replica.start();
    await redisCommand(replica.port, 'replicaof', primary.host, String(primary.port));
    await linkUp(replica);
    await reconnected(client);
  });

  const meta = (sub: TestSubscription): CommandMeta => ({
    gpsi: sub.gpsi,
    wholesaleCustomerId: sub.wholesaleCustomerId,
    commandId: randomUUID(),
    correlationId: randomUUID(),
    operation: 'UpdateBalances',
    at: new Date().toISOString(),
  });
  const addOne = (sub: TestSubscription, command: CommandMeta) =>
    balance.balances.updateBalances(command, checkUpdateActions([{ subBalanceInstId: `${sub.gpsi}-4`, subBalanceType: 'On-Net Data', action: 'Add', quantity: 1, unitType: 'MB' }]));

  it('a slice begun while the client reconnects waits for the connection and runs; one begun while Redis is unreachable fails after a second, not at once', async () => {
    const slice = oneConnection(client);
    proxy.cut();
    await sleep(20); // the client saw the close: it reconnects
    // before, it began on the closed connection and failed at once, however soon the client was back
    expect(await slice(() => client.ping())).toBe('PONG');

    const target = proxy.target;
    proxy.target = { host: '127.0.0.1', port: 1 }; // nothing listens: every connection refused
    proxy.cut();
    await sleep(20);
    const began = performance.now();
    await expect(slice(() => client.ping())).rejects.toThrow(RetriableError);
    // before, a slice failed within a millisecond: a worker went round failing slices, 60,000 a minute
    expect(performance.now() - began).toBeGreaterThanOrEqual(900);
    proxy.target = target;
    await reconnected(client);
  });

  it('a command in flight when the connection closes is refused once the client is back, not left pending', async () => {
    const inFlight = client.blpop(`nothing-${randomUUID()}`, 5).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    await sleep(200);
    proxy.cut();
    // without the ioredis patch (patches/ioredis+5.11.1.patch) it never settles, until the command timeout (2 s)
    expect(await Promise.race([inFlight, sleep(1000).then(() => 'pending')])).toBe('AbortError');
  });

  it("a slice's next command after the failover is refused; the slice again applies both, in the topic's order", async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    await replicatedWrites(client, 1, 2000)(); // the subscription is on the replica
    const first = meta(sub);
    const second = meta(sub);
    const inSlice = oneConnection(client);

    await replicaPromoted();
    const slice = inSlice(async () => {
      await addOne(sub, first); // applied on the primary only
      await failover();
      await addOne(sub, second);
    });
    const refused = await slice.then(
      () => 'applied',
      (error: unknown) => error,
    );
    // refused before it was sent (the connection seen gone), or aborted with the connection it was written on
    expect(refused instanceof RetriableError || isRedisUnavailable(refused)).toBe(true);

    // the slice comes again, from its first record, on the new primary
    await reconnected(client);
    await inSlice(async () => {
      await addOne(sub, first);
      await addOne(sub, second);
    });
    const ledger = await client.lrange(subscriberKeys(config.redis.keyPrefix, sub.gpsi).ledger, 0, -1);
    const positionOf = (command: CommandMeta) => ledger.findIndex((entry) => entry.includes(command.correlationId));
    // the ledger's newest entry first: the second command is the newer
    expect([positionOf(second), positionOf(first)]).toEqual([0, 1]);
  });

  it('a script issued while an earlier call waits unanswered does not go out on the new primary after the failover', async () => {
    const sub = await createActiveSubscription(balance.subscriptions);
    await replicatedWrites(client, 1, 2000)(); // the subscription is on the replica
    await replicaPromoted();
    const second = meta(sub);
    const inSlice = oneConnection(client);
    const slice = inSlice(async () => {
      proxy.blackhole = true; // the primary stops answering: a call is in flight, unanswered
      const unanswered = client.get(`anything-${randomUUID()}`).catch(() => undefined);
      await sleep(50);
      // the connection is still the slice's: the script is not refused here. An auto-pipeline would keep it
      // behind the unanswered call and send it once that one ends: after the failover, to the new primary
      const applied = addOne(sub, second).then(
        () => 'applied',
        () => 'refused',
      );
      await sleep(50);
      proxy.blackhole = false;
      await failover();
      await unanswered;
      return applied;
    }).catch(() => 'slice failed');
    await slice;
    await reconnected(client);
    const ledger = await client.lrange(subscriberKeys(config.redis.keyPrefix, sub.gpsi).ledger, 0, -1);
    // the new primary has not applied it: the slice comes again, its commands in order
    expect(ledger.filter((entry) => entry.includes(second.correlationId))).toEqual([]);
  });

  it('a slice whose connection closed fails even when it finished: its WAIT went to a connection without its writes', async () => {
    const inSlice = oneConnection(client);
    const slice = inSlice(async () => {
      await client.set(`written-${randomUUID()}`, '1');
      proxy.cut();
      await reconnected(client);
      // WAIT on the new connection counts none of the slice's writes: it passes at once
      await replicatedWrites(client, 0, 100)();
    });
    await expect(slice).rejects.toThrow(/Redis connection lost during the slice/);
    await expect(inSlice(() => client.ping())).resolves.toBe('PONG');
  });
});
