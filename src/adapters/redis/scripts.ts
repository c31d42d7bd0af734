import { Cluster, type Redis } from 'ioredis';
import { timedRedisCall } from './call-timing';
import { assertSameConnection } from './one-connection';
import { REDIS_FUNCTION_LIBRARY, REDIS_SCRIPTS, type RedisScriptName } from './scripts.generated';

/**
 * Every atomic Redis step is one Lua script in scripts/, named `<command>-<numberOfKeys>.lua` (BullMQ
 * style), compiled by `npm run generate` into one Redis function library (scripts.generated.ts): the
 * service reads no script file at run time, and a script name that does not exist fails the type check.
 * Each call is one FCALL, routed by its first key on a Redis Cluster. The library is loaded on first use:
 * a Redis that does not have it (new, restarted without persistence, a Cluster node added later) answers
 * "Function not found" without running anything, and the call loads the library and runs once more.
 */
const FUNCTION_MISSING = /^ERR Function not found/;

const loading = new WeakMap<Redis | Cluster, Promise<void>>();

/** FUNCTION LOAD of the library on the client's Redis (every primary of a Cluster); REPLACE makes it idempotent. */
export async function loadFunctionLibrary(client: Redis | Cluster): Promise<void> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  await Promise.all(nodes.map((node) => node.call('FUNCTION', 'LOAD', 'REPLACE', REDIS_FUNCTION_LIBRARY.code)));
}

/** One load at a time per client: every call in flight when the library was missing waits on the same one. */
function loadOnce(client: Redis | Cluster): Promise<void> {
  let pending = loading.get(client);
  if (!pending) {
    pending = loadFunctionLibrary(client).finally(() => loading.delete(client));
    loading.set(client, pending);
  }
  return pending;
}

/** Calls one step; the typed wrappers in each store use this. */
export function runScript<T>(client: Redis | Cluster, name: RedisScriptName, keys: string[], args: (string | number)[]): Promise<T> {
  const { functionName, numberOfKeys } = REDIS_SCRIPTS[name];
  if (keys.length !== numberOfKeys) throw new Error(`Redis script ${name} takes ${numberOfKeys} keys, given ${keys.length}`);
  const call = () => {
    assertSameConnection(client);
    return client.fcall(functionName, numberOfKeys, ...keys, ...args) as Promise<T>;
  };
  return timedRedisCall(client, name, async () => {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof Error && FUNCTION_MISSING.test(error.message))) throw error;
      await loadOnce(client);
      return call();
    }
  });
}
