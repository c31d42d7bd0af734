import { startRedisCluster, type RedisCluster } from '../../dev/stack';

/**
 * The Redis shapes the balance tests run against: the stack's single Redis (REDIS_URL from global-setup)
 * and a three-master Redis Cluster started for the test file. The same scripts must work on both.
 */
export interface RedisTopology {
  name: 'single' | 'cluster';
  /** Environment overrides for the service configuration (REDIS_URL, REDIS_CLUSTER). */
  env(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

const single = (): RedisTopology => ({ name: 'single', env: async () => ({}), stop: async () => undefined });

function cluster(): RedisTopology {
  let started: Promise<RedisCluster> | undefined;
  return {
    name: 'cluster',
    async env() {
      const { urls } = await (started ??= startRedisCluster({ masters: 3 }));
      return { REDIS_URL: urls.join(','), REDIS_CLUSTER: 'true' };
    },
    async stop() {
      if (started) await (await started).stop();
    },
  };
}

export const redisTopologies = (): RedisTopology[] => [single(), cluster()];
