import { join } from 'node:path';
import { sendOneCommand } from '../../../src/adapters/redis/one-command';
import { allocatePorts, LOOPBACK } from '../net/ports';
import { createServerFolder, LocalServer, type ServerControl, type ServerFolderOptions } from '../process/local-server';
import { waitUntil } from '../process/wait';

export interface LocalRedisOptions extends ServerFolderOptions {
  /** Default: a free loopback port (with its cluster bus port +10000 free too when clusterEnabled). */
  readonly port?: number;
  /**
   * Append-only file, default on with fsync every second: data survives stop()/start(), and kill() loses
   * at most the last second. Off: a restart starts empty.
   */
  readonly appendOnly?: boolean;
  readonly appendFsync?: 'always' | 'everysec' | 'no';
  /** Runs the node with --cluster-enabled (used by startRedisCluster). */
  readonly clusterEnabled?: boolean;
  /** More redis-server arguments, e.g. ['--maxmemory', '64mb']. */
  readonly extraArgs?: readonly string[];
  readonly readyTimeoutMs?: number;
}

export interface LocalRedis extends ServerControl {
  readonly host: string;
  readonly port: number;
  /** redis://127.0.0.1:<port> */
  readonly url: string;
}

export const CLUSTER_BUS_OFFSET = 10000;

/** Arguments of redis-server for one local node (pure). */
export function redisServerArgs(port: number, dataDir: string, options: LocalRedisOptions = {}): string[] {
  const { appendOnly = true, appendFsync = 'everysec', clusterEnabled = false, extraArgs = [] } = options;
  const args = ['--port', String(port), '--bind', LOOPBACK, '--dir', dataDir, '--save', '', '--daemonize', 'no'];
  args.push('--appendonly', appendOnly ? 'yes' : 'no', '--appendfsync', appendFsync);
  if (clusterEnabled) {
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000');
  }
  return [...args, ...extraArgs];
}

/** One redis-server process on a free loopback port, data in its own temporary folder. Ready when PING answers. */
export async function startLocalRedis(options: LocalRedisOptions = {}): Promise<LocalRedis> {
  const offsets = options.clusterEnabled ? [CLUSTER_BUS_OFFSET] : [];
  const port = options.port ?? (await allocatePorts({ count: 1, offsets }))[0];
  const dir = createServerFolder(`redis-${port}`, options);
  const server = new LocalServer({
    spec: {
      name: `redis ${port}`,
      command: 'redis-server',
      args: redisServerArgs(port, dir, options),
      cwd: dir,
      logFile: join(dir, 'redis.log'),
      stopTimeoutMs: 10_000,
    },
    dir,
    keepFiles: options.keepFiles,
    waitReady: (process) => waitUntil(() => redisCommand(port, 'ping'), { what: 'answering PING', timeoutMs: options.readyTimeoutMs ?? 20_000, process }).then(() => undefined),
  });
  await server.start();
  return Object.assign(server, { host: LOOPBACK, port, url: `redis://${LOOPBACK}:${port}` });
}

/** Sends one command on a short-lived connection and returns its answer (throws when Redis is not there). */
export const redisCommand = (port: number, command: string, ...args: string[]): Promise<string> => sendOneCommand(LOOPBACK, port, command, ...args);
