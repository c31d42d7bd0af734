// The two Redis shapes the nemesis runs against, each with the faults it plays on its primaries: a primary
// and its replica behind the test's TCP proxy (the network faults go through it; a failover is a replica
// promoted by hand, as Sentinel would), and a Redis Cluster with a replica per master (a failover is the
// replica's CLUSTER FAILOVER TAKEOVER; a master stopped or frozen past the cluster's 5 s node timeout is
// replaced by its replica on its own). The workers, the test's clients and the webhook dispatcher all use
// the shape's URLs.
import { startRedisCluster, type LocalRedis, type RedisCluster } from '../../../dev/stack';
import { redisCommand } from '../../../dev/stack/redis/local-redis';
import type { TcpProxy } from '../../support/tcp-proxy';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid of a redis-server, for SIGSTOP. */
export const redisPid = async (redis: LocalRedis): Promise<number> => Number(/process_id:(\d+)/.exec(await redisCommand(redis.port, 'info', 'server'))![1]);

/** Resolves once the replica's link to its primary is up (synced), at most 60 s. */
export async function replicaSynced(replica: LocalRedis): Promise<void> {
  for (let waited = 0; !(await redisCommand(replica.port, 'info', 'replication').catch(() => '')).includes('master_link_status:up'); waited += 100) {
    if (waited > 60_000) throw new Error(`replica ${replica.port} not synced within 60 s`);
    await sleep(100);
  }
}

export interface RedisShape {
  readonly name: 'pair' | 'cluster';
  /** What every client of the run is given: REDIS_URL (comma-separated) and REDIS_CLUSTER. */
  readonly urls: string[];
  readonly cluster: boolean;
  /** Between the clients and Redis, for the network faults (the pair only). */
  readonly proxy?: TcpProxy;
  /** The primary the `target` of a fault names, now. */
  primary(target: number): Promise<LocalRedis>;
  /** Starts a primary the nemesis stopped: it comes back as a primary, or as its successor's replica. */
  startAgain(node: LocalRedis): Promise<void>;
  /** The primary dies, its replica takes over; the old primary returns as the new one's replica, synced. */
  failover(target: number): Promise<void>;
  /** Every node running again. */
  heal(): Promise<void>;
  /** The end of the run: the pair's proxy closed (its servers serve the next run), the cluster stopped. */
  close(): Promise<void>;
}

/** The network faults, which only a shape with a proxy plays. */
export const PROXY_FAULTS = ['redis-delay', 'redis-partition', 'redis-drop'] as const;

/** Redis and its replica (redis-server --replicaof), reached through the proxy, which a failover points at the promoted one. */
export class PairRedis implements RedisShape {
  readonly name = 'pair';
  readonly cluster = false;

  constructor(
    private readonly pair: { primary: LocalRedis; replica: LocalRedis },
    readonly proxy: TcpProxy,
  ) {}

  get urls(): string[] {
    return [`redis://127.0.0.1:${this.proxy.port}`];
  }

  primary = async (): Promise<LocalRedis> => this.pair.primary;

  /** As a primary: a server first started as a replica (--replicaof) would come back as one. */
  async startAgain(node: LocalRedis): Promise<void> {
    await node.start();
    await redisCommand(node.port, 'replicaof', 'no', 'one');
  }

  async failover(): Promise<void> {
    const { primary: old, replica: promoted } = this.pair;
    await old.kill();
    await redisCommand(promoted.port, 'replicaof', 'no', 'one');
    this.proxy.target = { host: promoted.host, port: promoted.port };
    this.proxy.cut();
    Object.assign(this.pair, { primary: promoted, replica: old });
    await old.start();
    await redisCommand(old.port, 'replicaof', promoted.host, String(promoted.port));
    await replicaSynced(old);
  }

  async heal(): Promise<void> {
    if (!this.pair.primary.running) await this.startAgain(this.pair.primary);
    if (!this.pair.replica.running) await this.pair.replica.start();
  }

  close(): Promise<void> {
    return this.proxy.close();
  }
}

/** A Redis Cluster of three masters with a replica each; its roles read from CLUSTER NODES as they are now. */
export class ClusterRedis implements RedisShape {
  readonly name = 'cluster';
  readonly cluster = true;

  private constructor(private readonly redis: RedisCluster) {}

  static async start(): Promise<ClusterRedis> {
    return new ClusterRedis(await startRedisCluster({ masters: 3, replicas: 1, appendOnly: true, readyTimeoutMs: 60_000 }));
  }

  get urls(): string[] {
    return [...this.redis.urls];
  }

  /** Each master now, with its replicas, ordered by port, as the first node that answers sees them. */
  private async roles(): Promise<{ master: LocalRedis; replicas: LocalRedis[] }[]> {
    const byAddress = new Map(this.redis.nodes.map((node) => [`${node.host}:${node.port}`, node]));
    for (const node of this.redis.nodes.filter((n) => n.running)) {
      const text = await redisCommand(node.port, 'cluster', 'nodes').catch(() => undefined);
      if (text === undefined) continue;
      // <id> <ip:port@bus> <flags> <master id or -> …
      const rows = text
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map(([id, address, flags, masterId]) => ({ id, node: byAddress.get(address.split('@')[0]), flags: flags.split(','), masterId }));
      const masters = rows.filter((r) => r.flags.includes('master') && !r.flags.includes('fail') && r.node);
      return masters.map((m) => ({ master: m.node!, replicas: rows.filter((r) => r.masterId === m.id && r.node).map((r) => r.node!) })).sort((a, b) => a.master.port - b.master.port);
    }
    throw new Error('no node of the Redis Cluster answers CLUSTER NODES');
  }

  async primary(target: number): Promise<LocalRedis> {
    const masters = await this.roles();
    return masters[target % masters.length].master;
  }

  /** It rejoins as it finds the cluster: a master still, or its replica's replica if that took over meanwhile. */
  async startAgain(node: LocalRedis): Promise<void> {
    await node.start();
  }

  async failover(target: number): Promise<void> {
    const masters = await this.roles();
    const { master, replicas } = masters[target % masters.length];
    const [replica] = replicas;
    if (!replica) throw new Error(`master ${master.port} has no replica to fail over to`);
    await master.kill();
    await redisCommand(replica.port, 'cluster', 'failover', 'takeover');
    for (let waited = 0; !(await redisCommand(replica.port, 'role')).startsWith('master'); waited += 100) {
      if (waited > 30_000) throw new Error(`replica ${replica.port} not master 30 s after CLUSTER FAILOVER TAKEOVER`);
      await sleep(100);
    }
    await master.start();
    await replicaSynced(master);
  }

  async heal(): Promise<void> {
    for (const node of this.redis.nodes) if (!node.running) await node.start();
  }

  close(): Promise<void> {
    return this.redis.stop();
  }
}
