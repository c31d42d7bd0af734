import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LOOPBACK } from '../net/ports';
import { StackStartError, waitUntil } from '../process/wait';
import type { ServerFolderOptions } from '../process/local-server';
import { redisCommand, startLocalRedis, type LocalRedis, type LocalRedisOptions } from './local-redis';

const run = promisify(execFile);

export interface RedisClusterOptions extends ServerFolderOptions {
  /** Number of masters; at least 3, as redis-cli --cluster create demands. */
  readonly masters?: number;
  /** Replicas of each master (default 0): with them a master that fails is replaced by its replica, as in production. */
  readonly replicas?: number;
  /** Persistence of each node; default: none (cluster tests do not restart nodes expecting data). */
  readonly appendOnly?: LocalRedisOptions['appendOnly'];
  readonly readyTimeoutMs?: number;
}

export interface RedisCluster {
  /** Each node (the masters first, then their replicas, as created), with its own stop/start/kill. */
  readonly nodes: readonly LocalRedis[];
  /** redis://127.0.0.1:<port> of every node. */
  readonly urls: readonly string[];
  /** { host, port } of every node, the shape ioredis' Cluster takes. */
  readonly startupNodes: readonly { host: string; port: number }[];
  /** Stops every node and removes their folders. */
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of `masters` redis-server nodes and `replicas` of each on free loopback ports (bus ports
 * +10000 free too), joined by `redis-cli --cluster create` with the 16384 slots split evenly, ready when
 * every node reports cluster_state:ok and every replica is synced with its master.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  if (masters < 3) throw new Error(`a Redis Cluster needs at least 3 masters, got ${masters}`);
  const nodeOptions: LocalRedisOptions = { ...options, clusterEnabled: true, appendOnly: options.appendOnly ?? false };
  const started = await Promise.allSettled(Array.from({ length: masters * (1 + replicas) }, () => startLocalRedis(nodeOptions)));
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.dispose()));
  };
  try {
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    await createCluster(nodes, replicas);
    for (const node of nodes) {
      await waitUntil(async () => ((await redisCommand(node.port, 'cluster', 'info')).includes('cluster_state:ok') ? true : undefined), {
        what: 'reporting cluster_state:ok',
        timeoutMs: options.readyTimeoutMs ?? 30_000,
        intervalMs: 200,
      });
    }
    for (const node of nodes) {
      const synced = (info: string) => info.includes('role:master') || info.includes('master_link_status:up');
      await waitUntil(async () => (synced(await redisCommand(node.port, 'info', 'replication')) ? true : undefined), {
        what: 'synced with its master',
        timeoutMs: options.readyTimeoutMs ?? 30_000,
        intervalMs: 200,
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    urls: nodes.map((node) => node.url),
    startupNodes: nodes.map((node) => ({ host: LOOPBACK, port: node.port })),
    stop,
  };
}

async function createCluster(nodes: readonly LocalRedis[], replicas: number): Promise<void> {
  const args = ['--cluster', 'create', ...nodes.map((node) => `${LOOPBACK}:${node.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'];
  try {
    await run('redis-cli', args, { timeout: 30_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new StackStartError(`redis-cli ${args.join(' ')} failed: ${(error as Error).message}\n${stdout}${stderr}`);
  }
}
