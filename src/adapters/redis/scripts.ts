import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis, Cluster } from 'ioredis';
import { timedRedisCall } from './call-timing';

/**
 * Every atomic Redis step is one Lua script in scripts/, named `<command>-<numberOfKeys>.lua` (BullMQ
 * style). They are registered with defineCommand, so ioredis sends EVALSHA and falls back to EVAL, and
 * routes each call by its first key on a Redis Cluster.
 */
const SCRIPT_FILE = /^([a-zA-Z][a-zA-Z0-9]*)-(\d+)\.lua$/;
/** `-- @include name` inlines scripts/lib/name.lua, so scripts share helpers without repeating them. */
const INCLUDE = /^--\s*@include\s+([a-zA-Z0-9_-]+)\s*$/gm;

export const SCRIPTS_DIR = join(__dirname, 'scripts');

export function scriptSource(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8').replace(INCLUDE, (_, lib: string) => readFileSync(join(dir, 'lib', `${lib}.lua`), 'utf8'));
}

export function defineScripts(client: Redis | Cluster, dir = SCRIPTS_DIR): string[] {
  const names: string[] = [];
  for (const file of readdirSync(dir).sort()) {
    const match = SCRIPT_FILE.exec(file);
    if (!match) continue;
    const [, name, keys] = match;
    client.defineCommand(name, { numberOfKeys: Number(keys), lua: scriptSource(dir, file) });
    names.push(name);
  }
  return names;
}

/**
 * Calls a script registered by defineScripts; the typed wrappers in each store use this. `buffers`: bulk
 * replies as Buffers (ioredis' `<name>Buffer` variant), for binary values.
 */
export function runScript<T>(client: Redis | Cluster, name: string, keys: string[], args: (string | number)[], options: { buffers?: boolean } = {}): Promise<T> {
  const method = options.buffers ? `${name}Buffer` : name;
  const command = (client as unknown as Record<string, (...a: (string | number)[]) => Promise<T>>)[method];
  if (typeof command !== 'function') throw new Error(`Redis script ${name} is not defined (missing scripts/${name}-N.lua?)`);
  return timedRedisCall(client, name, () => command.call(client, ...keys, ...args));
}
