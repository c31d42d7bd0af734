// A slice's Redis calls on one connection: a command applied on a primary that a failover then lost must not
// be followed, in the same slice, by the next command of its number applied on the new primary.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Cluster, type Redis } from 'ioredis';
import { RetriableError } from '../../contract/errors';
import { sleep } from '../../shared/retry';
import type { RedisClient } from './client';

/** The nodes that take the client's writes (every primary of a Cluster), each with its socket as it is now. */
const connectionsOf = (client: RedisClient) => new Map<Redis, Redis['stream']>((client instanceof Cluster ? client.nodes('master') : [client]).map((node) => [node, node.stream]));

/**
 * Whether the client's writes still go to the connections of `began`. A command the client cannot write now
 * waits in its offline queue for the next connection, a socket that ended is not writable before the client
 * sees it close, and a Cluster that moved its slots has other primaries: all three are another connection.
 */
function same(client: RedisClient, began: Map<Redis, Redis['stream']>): boolean {
  const now = connectionsOf(client);
  if (now.size !== began.size) return false;
  for (const [node, stream] of now) {
    if (began.get(node) !== stream || node.status !== 'ready' || !stream?.writable) return false;
  }
  return true;
}

interface Scope {
  client: RedisClient;
  began: Map<Redis, Redis['stream']>;
}

const scopes = new AsyncLocalStorage<Scope>();

const lost = () => new RetriableError('Redis connection lost during the slice: its calls are refused and the slice comes again');

/**
 * How long a slice waits for the client's connections before it begins, and how often it looks. Begun on a
 * connection not ready (Redis down, the client reconnecting), a slice failed at once and came again at once:
 * a worker failed 60,000 slices a minute through a Redis outage, a warning each, both cores busy with it.
 */
const READY_WAIT_MS = 1_000;
const READY_POLL_MS = 25;

/** Resolves once every connection the client writes to is ready; fails retriably after READY_WAIT_MS. */
async function connectionsReady(client: RedisClient): Promise<void> {
  for (let waited = 0; !same(client, connectionsOf(client)); waited += READY_POLL_MS) {
    if (waited >= READY_WAIT_MS) throw new RetriableError(`Redis not connected for ${READY_WAIT_MS} ms: the slice comes again`);
    await sleep(READY_POLL_MS);
  }
}

/**
 * Runs `work` (one slice: its scripts and its WAIT) pinned to the client's connections as they are now. Once
 * one of them is gone, every script the work calls is refused (`assertSameConnection`, in `runScript`), and the
 * work fails retriably at its end even if it finished: what it wrote on the lost connection may be gone with a
 * failed-over primary, and a WAIT on the new one counts none of it. Its records come again, in order. The
 * client must be `fenced` (client.ts): a command resent after a reconnect, or an auto-pipeline sent after
 * the call before it ended, would run on the new primary.
 */
export function oneConnection(client: RedisClient): <T>(work: () => Promise<T>) => Promise<T> {
  return async (work) => {
    await connectionsReady(client);
    const scope = { client, began: connectionsOf(client) };
    const result = await scopes.run(scope, work);
    if (!same(client, scope.began)) throw lost();
    return result;
  };
}

/** Throws retriably when called inside `oneConnection` for `client` once the scope's connection is gone. */
export function assertSameConnection(client: RedisClient): void {
  const scope = scopes.getStore();
  if (scope?.client === client && !same(client, scope.began)) throw lost();
}
