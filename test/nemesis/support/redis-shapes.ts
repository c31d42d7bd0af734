// The two Redis shapes the nemesis runs against, each with the faults it plays on its primaries: a primary
// and its replica behind the test's TCP proxy (a failover is a replica promoted by hand, as Sentinel would),
// and a Redis Cluster with a replica per master, each node behind a proxy of its own that it announces as its
// address (a failover is the replica's CLUSTER FAILOVER TAKEOVER; a master stopped or frozen past the
// cluster's 5 s node timeout is replaced by its replica on its own). The network faults go through the
// proxies. The workers, the test's clients and the webhook dispatcher all use the shape's URLs.
import { startRedisCluster, type LocalRedis, type RedisCluster } from '../../../dev/stack';
import { redisCommand } from '../../../dev/stack/redis/local-redis';
import { TcpProxy } from '../../support/tcp-proxy';

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

/** A node's CLUSTER NODES, row by row: `<id> <ip:port@bus> <flags> <master id or -> …`. */
const clusterNodes = async (port: number): Promise<{ id: string; address: string; bus: string; flags: string[]; masterId: string }[]> =>
  (await redisCommand(port, 'cluster', 'nodes'))
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([id, at, flags, masterId]) => ({ id, address: at.split('@')[0], bus: at.split('@')[1], flags: flags.split(','), masterId }));

export interface RedisShape {
  readonly name: 'pair' | 'cluster';
  /** What every client of the run is given: REDIS_URL (comma-separated) and REDIS_CLUSTER. */
  readonly urls: string[];
  readonly cluster: boolean;
  /** Every proxy between the clients and Redis (healed at the end of a run). */
  readonly proxies: readonly TcpProxy[];
  /** The primary the `target` of a fault names, now. */
  primary(target: number): Promise<LocalRedis>;
  /** The proxy in front of that primary, for a network fault. */
  proxyOf(target: number): Promise<TcpProxy>;
  /** Starts a primary the nemesis stopped: it comes back as a primary, or as its successor's replica. */
  startAgain(node: LocalRedis): Promise<void>;
  /** The primary dies, its replica takes over; the old primary returns as the new one's replica, synced. */
  failover(target: number): Promise<void>;
  /** Every node running again. */
  heal(): Promise<void>;
  /** The end of the run: the pair's proxy closed (its servers serve the next run), the cluster stopped. */
  close(): Promise<void>;
}

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

  get proxies(): readonly TcpProxy[] {
    return [this.proxy];
  }

  primary = async (): Promise<LocalRedis> => this.pair.primary;

  proxyOf = async (): Promise<TcpProxy> => this.proxy;

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

/**
 * A Redis Cluster of three masters with a replica each; its roles read from CLUSTER NODES as they are now.
 * Each node announces its proxy's port (cluster-announce-port; its bus stays direct, so the cluster's own
 * view of its nodes is not what the faults break): CLUSTER SLOTS and MOVED send every client through the
 * proxies, replication included.
 */
export class ClusterRedis implements RedisShape {
  readonly name = 'cluster';
  readonly cluster = true;

  private constructor(
    private readonly redis: RedisCluster,
    private readonly proxyByNode: Map<LocalRedis, TcpProxy>,
  ) {}

  static async start(): Promise<ClusterRedis> {
    const redis = await startRedisCluster({ masters: 3, replicas: 1, appendOnly: true, readyTimeoutMs: 60_000 });
    const proxies = await Promise.all(redis.nodes.map((node) => TcpProxy.start({ host: node.host, port: node.port })));
    const shape = new ClusterRedis(redis, new Map(redis.nodes.map((node, i) => [node, proxies[i]])));
    for (const node of redis.nodes) await shape.announceProxy(node);
    await shape.proxiesKnown();
    return shape;
  }

  get urls(): string[] {
    return [...this.proxyByNode.values()].map((proxy) => `redis://127.0.0.1:${proxy.port}`);
  }

  get proxies(): readonly TcpProxy[] {
    return [...this.proxyByNode.values()];
  }

  /** The node's proxy port as its address, its own bus port kept (a restart forgets both: announced again). */
  private async announceProxy(node: LocalRedis): Promise<void> {
    const bus = (await clusterNodes(node.port)).find((row) => row.flags.includes('myself'))?.bus;
    if (!bus) throw new Error(`node ${node.port}: no bus port in CLUSTER NODES`);
    await redisCommand(node.port, 'config', 'set', 'cluster-announce-bus-port', bus);
    await redisCommand(node.port, 'config', 'set', 'cluster-announce-port', String(this.proxyByNode.get(node)!.port));
  }

  /** Resolves once every node sees every other at its proxy's port (the gossip carried the announcements), at most 30 s. */
  private async proxiesKnown(): Promise<void> {
    const proxyAddresses = new Set([...this.proxyByNode.values()].map((proxy) => `127.0.0.1:${proxy.port}`));
    for (let waited = 0; ; waited += 200) {
      const views = await Promise.all(this.redis.nodes.map((node) => clusterNodes(node.port).catch(() => [])));
      const known = views.every((rows) => rows.length === proxyAddresses.size && rows.every((row) => proxyAddresses.has(row.address)));
      if (known) return;
      if (waited > 30_000) throw new Error(`the cluster's nodes do not all announce their proxies after 30 s: ${JSON.stringify(views.map((rows) => rows.map((row) => row.address)))}`);
      await sleep(200);
    }
  }

  /** Each master now, with its replicas, ordered by port, as the first node that answers sees them. */
  private async roles(): Promise<{ master: LocalRedis; replicas: LocalRedis[] }[]> {
    // a node is listed at its proxy's port, or at its own just after a restart (until it announces again)
    const byAddress = new Map(this.redis.nodes.flatMap((node) => [`${node.host}:${node.port}`, `127.0.0.1:${this.proxyByNode.get(node)!.port}`].map((address) => [address, node] as const)));
    for (const node of this.redis.nodes.filter((n) => n.running)) {
      const listed = await clusterNodes(node.port).catch(() => undefined);
      if (listed === undefined) continue;
      const rows = listed.map((row) => ({ ...row, node: byAddress.get(row.address) }));
      const masters = rows.filter((r) => r.flags.includes('master') && !r.flags.includes('fail') && r.node);
      return masters.map((m) => ({ master: m.node!, replicas: rows.filter((r) => r.masterId === m.id && r.node).map((r) => r.node!) })).sort((a, b) => a.master.port - b.master.port);
    }
    throw new Error('no node of the Redis Cluster answers CLUSTER NODES');
  }

  async primary(target: number): Promise<LocalRedis> {
    const masters = await this.roles();
    return masters[target % masters.length].master;
  }

  async proxyOf(target: number): Promise<TcpProxy> {
    return this.proxyByNode.get(await this.primary(target))!;
  }

  /** It rejoins as it finds the cluster: a master still, or its replica's replica if that took over meanwhile. */
  async startAgain(node: LocalRedis): Promise<void> {
    await node.start();
    await this.announceProxy(node);
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
    await this.startAgain(master);
    await replicaSynced(master);
  }

  async heal(): Promise<void> {
    for (const node of this.redis.nodes) if (!node.running) await this.startAgain(node);
  }

  async close(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
    await this.redis.stop();
  }
}
