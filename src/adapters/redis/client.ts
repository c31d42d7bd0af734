import { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

/**
 * One Redis client for the process, a single node or a Cluster (REDIS_CLUSTER=true, REDIS_URL a
 * comma-separated list of node URLs). Commands wait in the offline queue while Redis is away and fail
 * after a bounded number of retries, so a command is retried by Kafka rather than answered wrongly.
 * Auto-pipelining sends the commands issued in one turn of the event loop in one write instead of one
 * syscall each; the worker's client (`fenced`) writes its scripts at once instead.
 * `commandTimeoutMs` bounds every command: a Redis that stops answering (a frozen process, a black-holed
 * connection) keeps the TCP connection open, so without it a command waits forever and the batch with it.
 * A command that timed out may still run later; every mutating script records its outcome, so its retry
 * finds it instead of applying again.
 */
export interface RedisClientOptions {
  urls: string[];
  cluster: boolean;
  maxRetriesPerRequest?: number;
  /** Fails a command not answered within this many ms (isRedisUnavailable: retriable); none when undefined. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * The worker's client (one-connection.ts): a script goes out on the connection the slice checked, or not at
   * all. After a failover the client's next connection is to a new primary, and a script run there could
   * follow one the old primary applied and lost. So commands in flight when a connection closed are not
   * sent again once it is back (ioredis's default resends them), and scripts are not auto-pipelined: an
   * auto-pipeline issued while the one before it waits unanswered goes out when that one ends — after a
   * failover, on the new connection. Written at once, a script that finds the client not ready is refused.
   */
  fenced?: boolean;
}

/** Commands left out of auto-pipelining on a fenced client: the Redis functions (runScript), written at once. */
const WRITTEN_AT_ONCE = ['fcall'];

export function createRedisClient(options: RedisClientOptions): RedisClient {
  const nodeOptions = {
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 3,
    commandTimeout: options.commandTimeoutMs,
    autoResendUnfulfilledCommands: !options.fenced,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeout: options.connectTimeoutMs }),
  };
  const unpipelined = options.fenced ? { autoPipeliningIgnoredCommands: WRITTEN_AT_ONCE } : {};
  const client = options.cluster
    ? new Cluster(
        options.urls.map((url) => {
          const u = new URL(url);
          return { host: u.hostname, port: Number(u.port || 6379) };
        }),
        {
          enableAutoPipelining: true,
          ...unpipelined,
          redisOptions: nodeOptions,
        },
      )
    : new Redis(options.urls[0], { ...nodeOptions, enableAutoPipelining: true, ...unpipelined });
  return client;
}

/**
 * Redis error replies that refuse a command for a passing reason, by their code (the first word; Redis 7
 * keeps the code of an error raised inside a script): out of memory under `noeviction` (OOM), a primary
 * turned replica by a failover (READONLY, MASTERDOWN), a script running too long (BUSY), credentials not
 * yet accepted after a reconnect (NOAUTH), a restart loading its data (LOADING), a cluster resharding
 * or failing over (CLUSTERDOWN, TRYAGAIN; MOVED and ASK, which ioredis follows for a lone command but
 * hands back from an auto-pipeline of several slots, refreshing its slots: docs/decisions/redis-client.md).
 * The command did not run: retrying it later is right.
 */
const TRANSIENT_REPLY = /^(?:OOM|READONLY|MASTERDOWN|BUSY|NOAUTH|LOADING|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|MOVED|ASK)\b/;

/**
 * Errors that mean "Redis cannot serve this now" (retry later), as opposed to a bug or a script error.
 * The one classifier of the service: commands and NP responses are held and retried on these.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    // A pipelined command in flight when the connection dropped; it may have run, which is safe to retry:
    // every mutating script records its outcome under the command id in the same step.
    error.name === 'AbortError' ||
    /Command aborted/i.test(error.message) ||
    /Command timed out/i.test(error.message) || // commandTimeout: Redis took longer than the bound to answer
    TRANSIENT_REPLY.test(error.message) ||
    /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Stream isn't writeable|enableOfflineQueue/i.test(error.message)
  );
}
