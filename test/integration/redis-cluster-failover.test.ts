import { startRedisCluster, type LocalRedis, type RedisCluster } from '../../dev/stack';
import { redisCommand } from '../../dev/stack/redis/local-redis';
import { createRedisClient, isRedisUnavailable, type RedisClient } from '../../src/adapters/redis/client';

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A Redis Cluster master failing over under the service's auto-pipelining client (the gateway's, the webhook
 * dispatcher's, the NP side's), with commands of many of its slots at once, as the nemesis's cluster shape
 * found. ioredis hands back a pipeline's MOVED errors when they name several slots, and unpatched it never
 * refreshed its slots for them: every later batch went to the old master, a replica now, and failed the same
 * way, for as long as the load lasted (patches/ioredis+5.11.1.patch, redis/ioredis#2075).
 */
describe('Redis Cluster failover under an auto-pipelining client', () => {
  let cluster: RedisCluster;
  let client: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1, appendOnly: true });
    client = createRedisClient({ urls: [...cluster.urls], cluster: true });
  });

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const roleOf = async (node: LocalRedis) => (await redisCommand(node.port, 'role')).split(',')[0];

  it("answers commands of the failed master's slots again once its replica took over, its writes kept", async () => {
    if (!('slots' in client)) throw new Error('a Cluster client was expected');
    const keys = Array.from({ length: 600 }, (_, i) => `failover:{${i}}`);
    await Promise.all(keys.map((key) => client.set(key, key)));
    // the keys of one master, each of its own slot
    const master = await firstMaster(cluster);
    const ofMaster: string[] = [];
    for (const key of keys) {
      const slot = Number(await client.cluster('KEYSLOT', key));
      if (client.slots[slot]?.[0] === `${master.host}:${master.port}`) ofMaster.push(key);
    }
    expect(ofMaster.length).toBeGreaterThan(50);
    const masterConnection = client.nodes('master').find((node) => node.options.port === master.port)!;
    const [, , replicas] = (await masterConnection.call('role')) as [string, number, [string, string, string][]];
    const replica = cluster.nodes.find((node) => node.port === Number(replicas[0][1]))!;
    // the writes on the replica before the master dies, as the workers' WAIT makes sure of
    expect(await masterConnection.wait(1, 5000)).toBe(1);

    await master.kill();
    await redisCommand(replica.port, 'cluster', 'failover', 'takeover');
    while ((await roleOf(replica)) !== 'master') await sleep(100);
    await master.start();
    while (!(await redisCommand(master.port, 'info', 'replication')).includes('master_link_status:up')) await sleep(100);

    // the load a gateway keeps up: all of the master's keys at once, every 100 ms, for at most 10 s
    let rounds = 0;
    let refused: unknown[] = [];
    for (const until = Date.now() + 10_000; Date.now() < until; rounds++) {
      const answers = await Promise.allSettled(ofMaster.map((key) => client.get(key)));
      refused = answers.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
      if (refused.length === 0) {
        expect(answers.map((a) => (a as PromiseFulfilledResult<string | null>).value)).toEqual(ofMaster);
        break;
      }
      // what is handed back is the service's to retry, not an error to answer
      expect(refused.every(isRedisUnavailable)).toBe(true);
      await sleep(100);
    }
    expect({ rounds, refused: refused.map(String).slice(0, 3) }).toEqual({ rounds: expect.any(Number), refused: [] });
  });
});

/** A master of the cluster as the first node that answers sees it. */
async function firstMaster(cluster: RedisCluster): Promise<LocalRedis> {
  for (const node of cluster.nodes) {
    if ((await redisCommand(node.port, 'role')).startsWith('master')) return node;
  }
  throw new Error('no master');
}
