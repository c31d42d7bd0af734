import { existsSync } from 'node:fs';
import Redis, { Cluster } from 'ioredis';
import { startRedisCluster, type RedisCluster } from '../../dev/stack';
import { redisCommand } from '../../dev/stack/redis/local-redis';
import { isPortFree } from '../../dev/stack/net/ports';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

/** startRedisCluster: three masters that really share the 16384 slots and route like a production cluster. */
describe('startRedisCluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  const began = Date.now();

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    console.log(`Redis Cluster of 3 masters ready in ${((Date.now() - began) / 1000).toFixed(1)} s: ${cluster.urls.join(' ')}`);
    client = new Cluster([...cluster.startupNodes]);
  });

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('reports cluster_state:ok on every node, with all 16384 slots assigned to 3 masters', async () => {
    for (const node of cluster.nodes) {
      const direct = new Redis(node.url);
      try {
        const info = String(await direct.call('cluster', 'info'));
        expect(info).toContain('cluster_state:ok');
        expect(info).toContain('cluster_slots_assigned:16384');
        expect(info).toContain('cluster_size:3');
      } finally {
        direct.disconnect();
      }
    }
  });

  it('stores a key in the slot range of each master, on that master', async () => {
    const slots = await client.cluster('SLOTS');
    expect(slots).toHaveLength(3);
    for (const [from, to, [, port]] of slots) {
      // A key whose slot lies in this master's range: ask the cluster for slots of candidate keys.
      let key: string;
      for (let i = 0; ; i++) {
        const slot = Number(await client.cluster('KEYSLOT', `key-${i}`));
        if (slot >= from && slot <= to) {
          key = `key-${i}`;
          break;
        }
      }
      await client.set(key, `on ${port}`);
      expect(await client.get(key)).toBe(`on ${port}`);
      const owner = new Redis({ host: '127.0.0.1', port });
      try {
        expect(await owner.get(key)).toBe(`on ${port}`); // it really lives on the master of its slot
      } finally {
        owner.disconnect();
      }
    }
  });

  it('runs a Lua script on keys of one hash tag, and refuses keys of two slots with CROSSSLOT', async () => {
    const script = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return redis.call('GET', KEYS[2])";
    expect(await client.eval(script, 2, 'wh:{447700900123}:a', 'wh:{447700900123}:b', 'v')).toBe('v');
    await expect(client.eval(script, 2, 'wh:{447700900123}:a', 'wh:{447700900999}:b', 'v')).rejects.toThrow(/CROSSSLOT/);
  });

  /** ROLE of one node, on a connection of its own: ['master', offset, replicas] or ['slave', host, port, …]. */
  const roleOf = async (url: string): Promise<unknown[]> => {
    const direct = new Redis(url);
    try {
      return (await direct.call('role')) as unknown[];
    } finally {
      direct.disconnect();
    }
  };

  it('with a replica per master: six nodes, each master with a synced replica that takes over, its writes kept, when the master is killed', async () => {
    const replicated = await startRedisCluster({ masters: 3, replicas: 1 });
    const writer = new Cluster([...replicated.startupNodes]);
    try {
      expect(replicated.nodes).toHaveLength(6);
      const roles = await Promise.all(replicated.nodes.map(async (node) => (await roleOf(node.url))[0]));
      expect(roles.filter((r) => r === 'master')).toHaveLength(3);
      expect(roles.filter((r) => r === 'slave')).toHaveLength(3);
      const key = 'wh:{447700900123}:k';
      await writer.set(key, 'kept');
      const slot = Number(await writer.cluster('KEYSLOT', key));
      const master = replicated.nodes.find((node) => `${node.host}:${node.port}` === writer.slots[slot][0])!;
      const [, , [[, replicaPort]]] = (await roleOf(master.url)) as [string, number, [string, string, string][]];
      const replica = replicated.nodes.find((node) => node.port === Number(replicaPort))!;
      expect(
        await writer
          .nodes('master')
          .find((node) => node.options.port === master.port)!
          .wait(1, 5000),
      ).toBe(1);
      await master.kill();
      await redisCommand(replica.port, 'cluster', 'failover', 'takeover');
      for (let waited = 0; (await roleOf(replica.url))[0] !== 'master' && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await redisCommand(replica.port, 'get', key)).toBe('kept');
    } finally {
      writer.disconnect();
      await replicated.stop();
    }
  });

  it('stop() ends every node, frees its ports and removes its folder', async () => {
    const other = await startRedisCluster({ masters: 3 });
    await other.stop();
    for (const node of other.nodes) {
      expect(node.running).toBe(false);
      expect(existsSync(node.dir)).toBe(false);
      expect(await isPortFree(node.port)).toBe(true);
      expect(await isPortFree(node.port + 10000)).toBe(true);
    }
  });
});
