import { startLocalRedis, type LocalRedis } from '../../dev/stack';
import { redisCommand } from '../../dev/stack/redis/local-redis';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { replicatedWrites } from '../../src/adapters/redis/replication';
import { RetriableError } from '../../src/contract/errors';

// REDIS_REPLICAS_TO_ACK: a primary and its replica (redis-server --replicaof). What WAIT acknowledged
// survives the primary's death and a promotion of the replica; with the replica frozen, WAIT fails
// retriably — those writes are the ones a failover loses, and the worker answers none of them.

const WRITES = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pidOf = async (redis: LocalRedis) => Number(/process_id:(\d+)/.exec(await redisCommand(redis.port, 'info', 'server'))![1]);

describe('Redis WAIT once per slice (replicatedWrites)', () => {
  let primary: LocalRedis;
  let replica: LocalRedis;
  let client: RedisClient;
  let frozen: number | undefined;

  beforeAll(async () => {
    primary = await startLocalRedis({ appendOnly: false });
    replica = await startLocalRedis({ appendOnly: false, extraArgs: ['--replicaof', primary.host, String(primary.port)] });
    for (let i = 0; i < 100 && !(await redisCommand(replica.port, 'info', 'replication')).includes('master_link_status:up'); i++) await sleep(100);
    client = createRedisClient({ urls: [primary.url], cluster: false, maxRetriesPerRequest: 1 });
  });

  afterAll(async () => {
    if (frozen !== undefined) process.kill(frozen, 'SIGCONT');
    client?.disconnect();
    await Promise.all([primary?.dispose(), replica?.dispose()]);
  });

  it('fails retriably while the replica does not acknowledge; what it acknowledged survives a failover', async () => {
    // a live replica on a loaded machine can take over 300 ms: the acknowledged half waits as long as it needs
    await Promise.all(Array.from({ length: WRITES }, (_, i) => client.set(`acked:${i}`, String(i))));
    await replicatedWrites(client, 1, 10_000)();

    const replicated = replicatedWrites(client, 1, 300);

    frozen = await pidOf(replica);
    process.kill(frozen, 'SIGSTOP');
    await Promise.all(Array.from({ length: WRITES }, (_, i) => client.set(`unacked:${i}`, String(i))));
    const refused = await replicated().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RetriableError);
    expect((refused as Error).message).toBe('Redis WAIT: 1 of 1 primaries had fewer than 1 replica(s) acknowledge within 300 ms');

    // the failover: the primary dies before the replica caught up, the replica is promoted
    await primary.kill();
    process.kill(frozen, 'SIGCONT');
    frozen = undefined;
    await redisCommand(replica.port, 'replicaof', 'no', 'one');
    const promoted = createRedisClient({ urls: [replica.url], cluster: false });
    try {
      expect((await promoted.keys('acked:*')).length).toBe(WRITES);
      // what WAIT did not acknowledge may be lost (whatever of it was in the replica's socket buffer survives):
      // the worker answered none of it
      console.log(`redis-replication: after the failover ${WRITES} of ${WRITES} acknowledged writes, ${(await promoted.keys('unacked:*')).length} of ${WRITES} unacknowledged`);
    } finally {
      promoted.disconnect();
    }
  });
});
