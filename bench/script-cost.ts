import { randomUUID } from 'node:crypto';
import { startLocalRedis } from '../dev/stack';
import { createRedisClient, type RedisClient } from '../src/adapters/redis/client';
import { createBalanceComponents } from '../src/app/balance';
import { loadConfig } from '../src/app/config';
import { loadCatalog } from '../src/app/service';
import { checkUpdateActions } from '../src/domain/balance/validation';
import { benchSubscription, Seeder } from './seed';

/**
 * `npm run bench:scripts`: what the balance scripts cost Redis per call, with no Kafka and no worker — a
 * query and an update on seeded subscriptions (WP-BASIC + two add-ons), `CALLS` each with `IN_FLIGHT` calls
 * in flight on one connection. Redis CPU per call is its process CPU over the calls (INFO cpu), network
 * and protocol included; the step itself is its commands' time in INFO commandstats (an FCALL's own, which
 * includes what it runs), steadier from run
 * to run (the process CPU of one query spread 17.5–34.6 µs over runs on different days and hours).
 * Commands per call count the ones the step runs too. The figures to compare when a script changes.
 */
const SUBSCRIPTIONS = 1_000;
const CALLS = 20_000;
const IN_FLIGHT = 64;

interface Cost {
  operation: string;
  callsPerSecond: number;
  /** This process's CPU per call: the client's side, encoding and writes included. */
  clientCpuMicrosPerCall: number;
  cpuMicrosPerCall: number;
  scriptMicrosPerCall: number;
  commandsPerCall: number;
}

async function redisCpuSeconds(redis: RedisClient): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? NaN);
  return read('used_cpu_sys') + read('used_cpu_user');
}

/** Calls per command since RESETSTAT, leaving out this file's own INFO and CONFIG. */
async function commandStats(redis: RedisClient): Promise<Map<string, { calls: number; usec: number }>> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const [, name, calls, usec] of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (!/^(info|config)/.test(name)) stats.set(name, { calls: Number(calls), usec: Number(usec) });
  }
  return stats;
}

async function measure(redis: RedisClient, operation: string, call: (i: number) => Promise<unknown>): Promise<Cost> {
  await redis.config('RESETSTAT');
  const cpuBefore = await redisCpuSeconds(redis);
  const clientBefore = process.cpuUsage();
  const began = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < CALLS) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const seconds = (performance.now() - began) / 1000;
  const client = process.cpuUsage(clientBefore);
  const cpu = (await redisCpuSeconds(redis)) - cpuBefore;
  const stats = await commandStats(redis);
  const commands = [...stats.values()].reduce((sum, s) => sum + s.calls, 0);
  // A script call's own entry (FCALL) times the whole step, the commands it runs included; a step of plain
  // commands (QueryBalances) is the sum of theirs.
  const stepMicros = stats.get('fcall')?.usec ?? [...stats.values()].reduce((sum, s) => sum + s.usec, 0);
  return {
    operation,
    callsPerSecond: CALLS / seconds,
    clientCpuMicrosPerCall: (client.user + client.system) / CALLS,
    cpuMicrosPerCall: (cpu / CALLS) * 1e6,
    scriptMicrosPerCall: stepMicros / CALLS,
    commandsPerCall: commands / CALLS,
  };
}

async function main(): Promise<void> {
  const server = await startLocalRedis({ appendOnly: false });
  try {
    const config = loadConfig({ KAFKA_BROKERS: 'unused:1', SCHEMA_REGISTRY_URL: 'http://unused', REDIS_URL: server.url, AUTH_MODE: 'none' });
    const catalog = loadCatalog(config.catalogFile);
    const seeder = new Seeder({ redisUrl: server.url, keyPrefix: config.redis.keyPrefix, catalog, idempotencyTtlSeconds: config.limits.idempotencyTtlSeconds });
    await seeder.fill(0, SUBSCRIPTIONS);
    const target = await seeder.updateTarget();
    await seeder.close();
    const redis = createRedisClient({ urls: [server.url], cluster: false });
    // the worker's client (src/app/service.ts): scripts written at once on the slice's connection, not auto-pipelined
    const fenced = createRedisClient({ urls: [server.url], cluster: false, fenced: true });
    const subscription = (i: number) => benchSubscription(i % SUBSCRIPTIONS);
    const update = (client: RedisClient) => {
      const { balances } = createBalanceComponents({ config, catalog, redis: client });
      return (i: number) => {
        const { gpsi, customer } = subscription(i);
        const action = { subBalanceInstId: `${gpsi}-${target.suffix}`, subBalanceType: target.subBalanceType, unitType: target.unitType, action: i % 2 ? 'Add' : 'Subtract', quantity: 1 };
        const meta = { gpsi, wholesaleCustomerId: customer, commandId: randomUUID(), correlationId: randomUUID(), operation: 'UpdateBalances', at: new Date().toISOString() };
        return balances.updateBalances(meta, checkUpdateActions([action]), {});
      };
    };
    const { balances } = createBalanceComponents({ config, catalog, redis });
    const costs = [
      await measure(redis, 'QueryBalances', (i) => balances.queryBalances(subscription(i).gpsi, [subscription(i).customer])),
      await measure(redis, 'UpdateBalances (Add or Subtract 1), auto-pipelined', update(redis)),
      await measure(fenced, "UpdateBalances (Add or Subtract 1), the worker's fenced client", update(fenced)),
      await measure(redis, 'UpdateBalances (Add or Subtract 1), auto-pipelined, again', update(redis)),
    ];
    redis.disconnect();
    fenced.disconnect();
    console.log(`| Step | Calls/s | Client CPU µs per call | Redis CPU µs per call | of which the step itself (commandstats) | Redis commands per call |\n|---|---:|---:|---:|---:|---:|`);
    for (const c of costs)
      console.log(
        `| ${c.operation} | ${c.callsPerSecond.toFixed(0)} | ${c.clientCpuMicrosPerCall.toFixed(1)} | ${c.cpuMicrosPerCall.toFixed(1)} | ${c.scriptMicrosPerCall.toFixed(1)} | ${c.commandsPerCall.toFixed(2)} |`,
      );
    console.log(`(${CALLS} calls each, ${IN_FLIGHT} in flight, ${SUBSCRIPTIONS} subscriptions)`);
  } finally {
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
