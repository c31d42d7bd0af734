import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LOOPBACK } from '../net/ports';
import { StackStartError, waitUntil } from '../process/wait';
import type { ServerFolderOptions } from '../process/local-server';
import { redisCommand, startLocalRedis, type LocalRedis, type LocalRedisOptions } from './local-redis';

const run = promisify(execFile);

export interface RedisClusterOptions extends ServerFolderOptions {
  /** Number of masters (no replicas); at least 3, as redis-cli --cluster create demands. */
  readonly masters?: number;
  /** Persistence of each node; default: none (cluster tests do not restart nodes expecting data). */
  readonly appendOnly?: LocalRedisOptions['appendOnly'];
  readonly readyTimeoutMs?: number;
}

export interface RedisCluster {
  /** Each master, with its own stop/start/kill. */
  readonly nodes: readonly LocalRedis[];
  /** redis://127.0.0.1:<port> of every master. */
  readonly urls: readonly string[];
  /** { host, port } of every master, the shape ioredis' Cluster takes. */
  readonly startupNodes: readonly { host: string; port: number }[];
  /** Stops every node and removes their folders. */
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of `masters` redis-server nodes on free loopback ports (bus ports +10000 free too),
 * joined by `redis-cli --cluster create` with the 16384 slots split evenly, ready when every node reports
 * cluster_state:ok.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  if (masters < 3) throw new Error(`a Redis Cluster needs at least 3 masters, got ${masters}`);
  const nodeOptions: LocalRedisOptions = { ...options, clusterEnabled: true, appendOnly: options.appendOnly ?? false };
  const started = await Promise.allSettled(Array.from({ length: masters }, () => startLocalRedis(nodeOptions)));
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.dispose()));
  };
  try {
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    await createCluster(nodes);
    for (const node of nodes) {
      await waitUntil(async () => ((await redisCommand(node.port, 'cluster', 'info')).includes('cluster_state:ok') ? true : undefined), {
        what: 'reporting cluster_state:ok',
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

async function createCluster(nodes: readonly LocalRedis[]): Promise<void> {
  const args = ['--cluster', 'create', ...nodes.map((node) => `${LOOPBACK}:${node.port}`), '--cluster-replicas', '0', '--cluster-yes'];
  try {
    await run('redis-cli', args, { timeout: 30_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new StackStartError(`redis-cli ${args.join(' ')} failed: ${(error as Error).message}\n${stdout}${stderr}`);
  }
}
