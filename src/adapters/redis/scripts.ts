import type { Redis, Cluster } from 'ioredis';
import { timedRedisCall } from './call-timing';
import { REDIS_SCRIPTS, type RedisScriptName } from './scripts.generated';

/**
 * Every atomic Redis step is one Lua script in scripts/, named `<command>-<numberOfKeys>.lua` (BullMQ
 * style), compiled by `npm run generate` into scripts.generated.ts: the service reads no script file at
 * run time, and a script name that does not exist fails the type check. They are registered with
 * defineCommand, so ioredis sends EVALSHA and falls back to EVAL, and routes each call by its first key on
 * a Redis Cluster.
 */
export function defineScripts(client: Redis | Cluster): RedisScriptName[] {
  const names = Object.keys(REDIS_SCRIPTS) as RedisScriptName[];
  for (const name of names) client.defineCommand(name, REDIS_SCRIPTS[name]);
  return names;
}

/**
 * Calls a script registered by defineScripts; the typed wrappers in each store use this. `buffers`: bulk
 * replies as Buffers (ioredis' `<name>Buffer` variant), for binary values.
 */
export function runScript<T>(client: Redis | Cluster, name: RedisScriptName, keys: string[], args: (string | number)[], options: { buffers?: boolean } = {}): Promise<T> {
  const method = options.buffers ? `${name}Buffer` : name;
  const command = (client as unknown as Record<string, (...a: (string | number)[]) => Promise<T>>)[method];
  if (typeof command !== 'function') throw new Error(`Redis script ${name} is not defined on this client (defineScripts)`);
  return timedRedisCall(client, name, () => command.call(client, ...keys, ...args));
}
